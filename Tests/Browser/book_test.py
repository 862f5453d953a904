#!/usr/bin/python3
"""Drives a real headless Chromium over the rendered book and over `workbook serve`.

    Tests/Browser/book_test.py BOOK_DIR WORKBOOK_BINARY BUILD_PATH SCREENSHOT_DIR

`make browser-test` builds the book and runs this with Debian's chromium, chromium-driver
and python3-selenium (scripts/install-browser-deps.sh installs them). Each check prints one
line; any failure is listed at the end and the exit status is 1. Screenshots of every page at
1280 px and 390 px, in both themes for the first chapter, go to SCREENSHOT_DIR for a person
to look at.
"""

import html.parser
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.parse
import urllib.request

from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys

WIDTHS = (1280, 390)
SHOTS = "."
failures = []


def check(condition, what):
    print(("ok    " if condition else "FAIL  ") + what, flush=True)
    if not condition:
        failures.append(what)


def start_browser():
    options = webdriver.ChromeOptions()
    options.binary_location = "/usr/bin/chromium"
    for argument in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                     "--hide-scrollbars", "--window-size=1280,900"):
        options.add_argument(argument)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    return webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)


def set_width(driver, width):
    # The window's inner width is what CSS media queries see; the outer size adds nothing
    # in headless mode.
    driver.set_window_size(width, 900)


def console_errors(driver):
    return [entry["message"] for entry in driver.get_log("browser") if entry["level"] == "SEVERE"]


class Links(html.parser.HTMLParser):
    """Every href and src, and every id, of one page."""

    def __init__(self):
        super().__init__()
        self.targets, self.ids = [], set()

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if "id" in attrs:
            self.ids.add(attrs["id"])
        for name in ("href", "src"):
            if attrs.get(name):
                self.targets.append(attrs[name])


def parse(path):
    parser = Links()
    with open(path, encoding="utf-8") as file:
        parser.feed(file.read())
    return parser


def check_links(book, pages):
    """Every internal link and anchor resolves to a file and an id in it."""
    parsed = {page: parse(os.path.join(book, page)) for page in pages}
    broken = []
    count = 0
    for page, links in parsed.items():
        for target in links.targets:
            url = urllib.parse.urlsplit(target)
            if url.scheme or url.netloc:
                broken.append(f"{page}: external reference {target} (the book must work offline)")
                continue
            path = urllib.parse.unquote(url.path) or page
            count += 1
            file = os.path.normpath(os.path.join(book, os.path.dirname(page), path))
            if not os.path.isfile(file):
                broken.append(f"{page}: {target} (no file)")
                continue
            if url.fragment:
                ids = parsed[path].ids if path in parsed else parse(file).ids
                if urllib.parse.unquote(url.fragment) not in ids:
                    broken.append(f"{page}: {target} (no such anchor)")
    check(not broken, f"{count} internal links and anchors resolve" + "".join("\n        " + b for b in broken[:20]))


def contrast_problems(driver):
    """Text whose colour is closer than 4.5:1 to the background it sits on."""
    return driver.execute_script("""
      function rgb(text) { var m = text.match(/[\\d.]+/g); return m ? m.map(Number) : [0, 0, 0, 0]; }
      function luminance(c) {
        var v = c.slice(0, 3).map(function (x) { x /= 255; return x <= 0.03928 ? x / 12.92 : Math.pow((x + 0.055) / 1.055, 2.4); });
        return 0.2126 * v[0] + 0.7152 * v[1] + 0.0722 * v[2];
      }
      function background(element) {
        for (var e = element; e; e = e.parentElement) {
          var c = rgb(getComputedStyle(e).backgroundColor);
          if (c.length < 4 || c[3] > 0) return c;
        }
        return rgb(getComputedStyle(document.body).backgroundColor);
      }
      var problems = [], seen = {};
      document.querySelectorAll("body *").forEach(function (e) {
        var direct = Array.prototype.some.call(e.childNodes, function (n) { return n.nodeType === 3 && n.textContent.trim(); });
        if (!direct || !e.getClientRects().length) return;
        var style = getComputedStyle(e);
        if (style.visibility === "hidden" || style.opacity === "0") return;
        var fg = rgb(style.color), bg = background(e);
        var a = luminance(fg), b = luminance(bg);
        var ratio = (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05);
        var key = e.tagName + "." + e.className + " " + style.color + " on " + getComputedStyle(e).backgroundColor;
        if (ratio < 4.5 && !seen[key]) { seen[key] = true; problems.push(key + " = " + ratio.toFixed(2)); }
      });
      return problems;
    """)


def heading_problems(driver):
    return driver.execute_script("""
      var last = 0, problems = [];
      document.querySelectorAll("main h1, main h2, main h3, main h4, main h5, main h6").forEach(function (h) {
        var level = Number(h.tagName[1]);
        if (last && level > last + 1) problems.push(h.tagName + " after H" + last + ": " + h.textContent.trim());
        last = level;
      });
      if (document.querySelectorAll("main h1").length !== 1) problems.push("not exactly one h1");
      return problems;
    """)


def check_pages(driver, book, pages, shots):
    for page in pages:
        url = "file://" + os.path.abspath(os.path.join(book, page))
        for width in WIDTHS:
            set_width(driver, width)
            driver.get(url)
            errors = console_errors(driver)
            check(not errors, f"{page} at {width} px loads with no console error or failed request"
                  + "".join("\n        " + e for e in errors[:5]))
            sideways = driver.execute_script(
                "return document.documentElement.scrollWidth - document.documentElement.clientWidth")
            wide = [] if sideways <= 0 else driver.execute_script("""
              var limit = document.documentElement.clientWidth, found = [];
              document.querySelectorAll("body *").forEach(function (e) {
                for (var a = e.parentElement; a; a = a.parentElement) {
                  if (/(auto|scroll|hidden)/.test(getComputedStyle(a).overflowX)) return;
                }
                var box = e.getBoundingClientRect();
                if (box.right > limit + 1 && found.length < 5) found.push(e.tagName + "." + e.className + " to " + Math.round(box.right) + " px");
              });
              return found;""")
            check(sideways <= 0, f"{page} at {width} px does not scroll sideways (overflow {sideways} px)"
                  + "".join("\n        " + w for w in wide))
            driver.save_screenshot(os.path.join(shots, f"{page[:-5]}-{width}.png"))
        landmarks = driver.execute_script(
            "return ['header', 'nav', 'main'].filter(function (t) { return !document.querySelector(t); })")
        check(not landmarks, f"{page} has header, nav and main landmarks (missing: {landmarks})")
        problems = heading_problems(driver)
        check(not problems, f"{page}: headings in order" + "".join("\n        " + p for p in problems))


def check_reading(driver, book, chapters, shots):
    first, second = chapters[0], chapters[1]
    set_width(driver, 1280)
    driver.get("file://" + os.path.abspath(os.path.join(book, second)))
    current = driver.find_elements(By.CSS_SELECTOR, '#sidebar a[aria-current="page"]')
    check(len(current) == 1 and current[0].get_attribute("href").endswith(second),
          "the sidebar marks the current chapter")
    check(current and current[0].is_displayed(), "the sidebar shows the current chapter at 1280 px")
    open_sections = driver.find_elements(By.CSS_SELECTOR, "#sidebar details[open] .sidebar-sections a")
    check(len(open_sections) > 0 and all(a.get_attribute("href").split("#")[0].endswith(second) or
                                          a.get_attribute("href").startswith("file://" + os.path.abspath(book) + "/" + second)
                                          for a in open_sections),
          "the current chapter's sections are open in the sidebar")
    blocks = len(driver.find_elements(By.CSS_SELECTOR, "pre.code"))
    buttons = len(driver.find_elements(By.CSS_SELECTOR, ".code-block > .copy-button"))
    check(blocks > 0 and blocks == buttons, f"every code block has a copy button ({buttons} of {blocks})")
    run_line = driver.find_elements(By.CSS_SELECTOR, "h1 + .run-command code")
    check(run_line and "workbook run" in run_line[0].text, "a line under the title gives the command that runs the chapter")

    # Keyboard: / focuses search; → and ← turn the page.
    body = driver.find_element(By.TAG_NAME, "body")
    body.send_keys("/")
    check(driver.switch_to.active_element.get_attribute("id") == "search-input", "/ focuses the search field")
    driver.switch_to.active_element.send_keys(Keys.ESCAPE)
    driver.find_element(By.TAG_NAME, "main").click()
    driver.find_element(By.TAG_NAME, "body").send_keys(Keys.ARROW_LEFT)
    time.sleep(0.5)
    check(driver.current_url.endswith("/" + first), "← opens the previous chapter")
    driver.find_element(By.TAG_NAME, "body").send_keys(Keys.ARROW_RIGHT)
    time.sleep(0.5)
    check(driver.current_url.endswith("/" + second), "→ opens the next chapter")

    # Theme: the toggle switches, the page's colours follow, and the choice is remembered.
    before = driver.execute_script("return getComputedStyle(document.body).backgroundColor")
    theme_before = driver.execute_script("return document.documentElement.dataset.theme || ''")
    driver.find_element(By.ID, "theme-toggle").click()
    after = driver.execute_script("return getComputedStyle(document.body).backgroundColor")
    theme_after = driver.execute_script("return document.documentElement.dataset.theme || ''")
    check(before != after and theme_after in ("light", "dark") and theme_after != theme_before,
          f"the theme toggle switches the theme ({before} -> {after})")
    driver.save_screenshot(os.path.join(shots, f"{second[:-5]}-1280-{theme_after}.png"))
    problems = contrast_problems(driver)
    check(not problems, f"text contrast is at least 4.5:1 in the {theme_after} theme"
          + "".join("\n        " + p for p in problems[:10]))
    driver.refresh()
    check(driver.execute_script("return document.documentElement.dataset.theme || ''") == theme_after,
          "the chosen theme is remembered after a reload")
    driver.find_element(By.ID, "theme-toggle").click()
    other = driver.execute_script("return document.documentElement.dataset.theme || ''")
    problems = contrast_problems(driver)
    check(not problems, f"text contrast is at least 4.5:1 in the {other} theme"
          + "".join("\n        " + p for p in problems[:10]))

    # Print: no navigation, every solution shown (closed or not).
    driver.execute_cdp_cmd("Emulation.setEmulatedMedia", {"media": "print"})
    hidden_navigation = driver.execute_script("""
      return ['.topbar', '.sidebar', '.pager', '.copy-button'].every(function (s) {
        return Array.prototype.every.call(document.querySelectorAll(s), function (e) { return !e.getClientRects().length; });
      })""")
    check(hidden_navigation, "printing leaves out the top bar, sidebar, pager and copy buttons")
    solutions = driver.execute_script("""
      var blocks = document.querySelectorAll('details.solution pre.code');
      return [blocks.length, Array.prototype.filter.call(blocks, function (e) { return e.checkVisibility(); }).length]""")
    check(solutions[0] > 0 and solutions[0] == solutions[1],
          f"printing shows every solution ({solutions[1]} of {solutions[0]} visible)")
    driver.execute_cdp_cmd("Emulation.setEmulatedMedia", {"media": ""})

    # Narrow screens: the sidebar is hidden until the toggle opens it.
    set_width(driver, 390)
    driver.refresh()
    sidebar = driver.find_element(By.ID, "sidebar")
    check(not sidebar.is_displayed(), "at 390 px the sidebar starts hidden")
    driver.find_element(By.ID, "sidebar-toggle").click()
    check(sidebar.is_displayed(), "at 390 px the toggle opens the sidebar")
    driver.save_screenshot(os.path.join(shots, f"{second[:-5]}-390-sidebar.png"))
    driver.find_element(By.TAG_NAME, "body").send_keys(Keys.ESCAPE)
    check(not sidebar.is_displayed(), "Escape closes the sidebar")


def check_search(driver, book, term, expected_page):
    set_width(driver, 1280)
    driver.get("file://" + os.path.abspath(os.path.join(book, "index.html")))
    field = driver.find_element(By.ID, "search-input")
    field.send_keys(term)
    results = driver.find_elements(By.CSS_SELECTOR, "#search-results a")
    check(any(expected_page in r.get_attribute("href") for r in results),
          f"searching for {term!r} lists {expected_page}")
    field.send_keys(Keys.ENTER)
    time.sleep(0.5)
    check(expected_page in driver.current_url, f"Enter opens the first result for {term!r} ({driver.current_url})")


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def listening_addresses(port):
    """The local addresses of listening TCP sockets on `port`, from /proc/net/tcp{,6}."""
    found = []
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            lines = open(table).read().splitlines()[1:]
        except OSError:
            continue
        for line in lines:
            fields = line.split()
            address, state = fields[1], fields[3]
            host, port_hex = address.split(":")
            if state == "0A" and int(port_hex, 16) == port:
                found.append(host)
    return found


def check_practice(driver, chapter):
    """Edit the example in the page, run it, compare with the book, save it to the file."""
    time.sleep(0.5)
    buttons = driver.find_elements(By.CSS_SELECTOR, "figure.snippet .edit-button")
    check(len(buttons) == 1, f"a served page offers Edit on its example ({len(buttons)} buttons)")
    if not buttons:
        return
    buttons[0].click()
    area = driver.find_element(By.CSS_SELECTOR, ".practice-code")
    check(area.get_attribute("value") == "print(1 + 2)\n", "the editor holds the example's code")
    area.clear()
    area.send_keys("print(2 + 2)")
    driver.find_element(By.XPATH, "//div[@class='practice-actions']/button[text()='Run']").click()
    verdict = None
    deadline = time.time() + 180
    while time.time() < deadline and verdict is None:
        found = driver.find_elements(By.CSS_SELECTOR, ".practice-verdict")
        verdict = found[0].text if found else None
        time.sleep(0.2)
    output = driver.find_elements(By.CSS_SELECTOR, ".practice-output")
    check(verdict is not None and "Differs" in verdict and output and output[0].text.strip() == "4",
          f"running an edit shows its output and that it differs from the book ({verdict!r})")
    with open(chapter) as file:
        check("print(1 + 2)" in file.read(), "running an edit leaves the chapter file alone")
    area.clear()
    area.send_keys("print(3)")
    driver.find_element(By.XPATH, "//div[@class='practice-actions']/button[text()='Save to chapter']").click()
    saved = False
    deadline = time.time() + 10
    while time.time() < deadline and not saved:
        with open(chapter) as file:
            saved = "print(3)\n```" in file.read()
        time.sleep(0.1)
    check(saved, "Save writes the edit into the chapter file")
    driver.save_screenshot(os.path.join(SHOTS, "serve-practice.png"))


def check_serve(driver, workbook, build_path):
    root = tempfile.mkdtemp(prefix="book-serve-")
    process = None
    try:
        os.makedirs(os.path.join(root, "Chapters"))
        chapter = os.path.join(root, "Chapters", "01-serve-test.md")
        with open(chapter, "w") as file:
            file.write("# Serve test\n\nThe first version of this page.\n\n"
                       "```swift\nprint(1 + 2)\n```\n\n```output\n3\n```\n")
        port = free_port()
        process = subprocess.Popen([workbook, "serve", "--root", root, "--port", str(port), "--build-path", build_path],
                                   stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        url = f"http://127.0.0.1:{port}/01-serve-test.html"
        deadline = time.time() + 180  # the first build compiles and runs the chapter
        while time.time() < deadline:
            try:
                urllib.request.urlopen(url, timeout=2).read()
                break
            except OSError:
                time.sleep(0.2)
        addresses = listening_addresses(port)
        check(addresses == ["0100007F"], f"workbook serve listens on 127.0.0.1 only ({addresses})")
        set_width(driver, 1280)
        driver.get(url)
        check("first version" in driver.find_element(By.TAG_NAME, "main").text, "workbook serve shows the chapter")
        time.sleep(1.5)  # the page's first poll learns the current version
        with open(chapter, "a") as file:
            file.write("\nAn edit made while the page is open.\n")
        edited = time.time()
        seen = None
        while time.time() - edited < 10:
            try:
                if "An edit made while the page is open." in driver.find_element(By.TAG_NAME, "main").text:
                    seen = time.time() - edited
                    break
            except Exception:
                pass  # the page is reloading
            time.sleep(0.05)
        check(seen is not None and seen <= 2.0,
              "an edited chapter appears in the open page within 2 seconds"
              + (f" ({seen:.2f} s)" if seen is not None else " (not within 10 s)"))
        check_practice(driver, chapter)
    finally:
        if process:
            process.terminate()
            try:
                process.wait(timeout=5)
            except subprocess.TimeoutExpired:
                process.kill()
        shutil.rmtree(root, ignore_errors=True)


def main():
    if len(sys.argv) != 5:
        print(__doc__, file=sys.stderr)
        return 2
    global SHOTS
    book, workbook, build_path, shots = sys.argv[1:]
    SHOTS = shots
    os.makedirs(shots, exist_ok=True)
    chapters = sorted(name for name in os.listdir(book) if name.endswith(".html") and name[:2].isdigit())
    pages = ["index.html"] + chapters
    if len(chapters) < 2:
        print("error: the book has fewer than two chapter pages; build it first (make book)", file=sys.stderr)
        return 2
    driver = start_browser()
    try:
        check_links(book, pages)
        check_pages(driver, book, pages, shots)
        check_reading(driver, book, chapters, shots)
        fetched = next((c for c in chapters if "fetched-results" in c), chapters[-1])
        check_search(driver, book, "NSFetchedResultsController", fetched)
        check_serve(driver, workbook, build_path)
    finally:
        driver.quit()
    print(f"\nbrowser tests: {len(failures)} failed; screenshots in {shots}")
    for failure in failures:
        print("  - " + failure.splitlines()[0])
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
