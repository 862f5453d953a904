#!/usr/bin/env bash
# Builds OpenCoreData's API reference with the toolchain's DocC, after `swift build`.
#
# 1. Extracts the module's public symbol graph from the build (swift-symbolgraph-extract).
# 2. Fails when a public symbol has no `///` summary (scripts/check-doc-summaries.py).
# 3. Stages the catalog (Sources/OpenCoreData/OpenCoreData.docc) with a copy of
#    Sources/OpenCoreData/LinuxDifferences.md, which stays where it is, as an article.
# 4. Converts it into .build/docs/OpenCoreData.doccarchive, a static site.
set -euo pipefail
cd "$(dirname "$0")/.."

SWIFT=${SWIFT:-swift}
BIN=$("$SWIFT" build --show-bin-path)          # .build/<triple>/debug, not the symlink
TRIPLE=$(basename "$(dirname "$BIN")")
OUT=.build/docs
GRAPHS=$OUT/symbol-graphs
CATALOG=$OUT/OpenCoreData.docc
ARCHIVE=$OUT/OpenCoreData.doccarchive
TOOLS=$(dirname "$(readlink -f "$(command -v "$SWIFT")")")

rm -rf "$GRAPHS" "$CATALOG" "$ARCHIVE"
mkdir -p "$GRAPHS"

echo "==> Extracting OpenCoreData's public symbol graph"
"$TOOLS/swift-symbolgraph-extract" \
  -module-name OpenCoreData -target "$TRIPLE" \
  -module-cache-path "$BIN/ModuleCache" -I "$BIN/Modules" \
  -Xcc -fmodule-map-file="$PWD/Sources/CSQLite/module.modulemap" \
  -Xcc -fmodule-map-file="$PWD/Sources/CSwiftRuntime/include/module.modulemap" \
  -Xcc -I -Xcc "$PWD/Sources/CSwiftRuntime/include" \
  -minimum-access-level public -skip-synthesized-members -omit-extension-block-symbols \
  -output-dir "$GRAPHS"

echo "==> Checking that every public symbol has a /// summary"
python3 scripts/check-doc-summaries.py "$GRAPHS" OpenCoreData

echo "==> Building the API reference with docc"
cp -R Sources/OpenCoreData/OpenCoreData.docc "$CATALOG"
cp Sources/OpenCoreData/LinuxDifferences.md "$CATALOG/LinuxDifferences.md"
"$TOOLS/docc" convert "$CATALOG" \
  --additional-symbol-graph-dir "$GRAPHS" \
  --fallback-display-name OpenCoreData \
  --fallback-bundle-identifier org.opencoredata.OpenCoreData \
  --transform-for-static-hosting \
  --output-path "$ARCHIVE" > "$OUT/docc.log" 2>&1 || { cat "$OUT/docc.log"; exit 1; }
warnings=$(grep -c 'warning:' "$OUT/docc.log" || true)
grep 'warning:' "$OUT/docc.log" || true
echo "==> API reference in $ARCHIVE ($warnings docc warnings, listed in $OUT/docc.log)"
echo "    read it: python3 -m http.server -b 127.0.0.1 -d $ARCHIVE 8001"
echo "    and open http://127.0.0.1:8001/documentation/opencoredata/"
