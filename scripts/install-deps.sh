#!/usr/bin/env bash
# Installs the C libraries the package links (SQLite and libcmark), and python3 for
# `make docs`, when they are missing, through apt-get as root or with sudo. Prints what
# it does; changes nothing when everything is already there.
#
#   scripts/install-deps.sh             the libraries the build needs, and python3
#   scripts/install-deps.sh --browser   what the browser tests need: Debian's chromium,
#                                       chromium-driver, python3 and python3-selenium
#                                       (nothing downloads a browser of its own)
set -euo pipefail

missing=()
have_header() { [ -f "/usr/include/$1" ]; }
if [ "${1:-}" = "--browser" ]; then
  [ -x /usr/bin/chromium ] || missing+=(chromium)
  [ -x /usr/bin/chromedriver ] || missing+=(chromium-driver)
  [ -x /usr/bin/python3 ] || missing+=(python3)
  { [ -x /usr/bin/python3 ] && /usr/bin/python3 -c 'import selenium' 2>/dev/null; } || missing+=(python3-selenium)
else
  have_header sqlite3.h || missing+=(libsqlite3-dev)
  have_header cmark.h || missing+=(libcmark-dev)
  command -v pkg-config >/dev/null 2>&1 || missing+=(pkg-config)
  # `make docs` checks the API's doc comments with a Python script.
  command -v python3 >/dev/null 2>&1 || missing+=(python3)
fi

if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi

echo "==> Installing missing system packages: ${missing[*]}"
if [ "$(id -u)" -eq 0 ]; then
  SUDO=""
elif command -v sudo >/dev/null 2>&1; then
  SUDO="sudo"
else
  echo "error: need root or sudo to install ${missing[*]} (apt-get install ${missing[*]})" >&2
  exit 1
fi
if ! command -v apt-get >/dev/null 2>&1; then
  echo "error: apt-get not found; install ${missing[*]} with your system's package manager" >&2
  exit 1
fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
echo "==> Installed ${missing[*]}"
