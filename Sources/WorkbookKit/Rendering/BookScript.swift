/// The book's script: theme toggle, search over `window.BOOK_INDEX`, live reload.
enum BookScript {
    static let javaScript = #"""
    (function () {
      "use strict";
      var root = document.documentElement;

      // Theme: an explicit choice is remembered; otherwise the system preference applies.
      var toggle = document.getElementById("theme-toggle");
      function currentTheme() {
        if (root.dataset.theme) return root.dataset.theme;
        return window.matchMedia && window.matchMedia("(prefers-color-scheme: dark)").matches ? "dark" : "light";
      }
      if (toggle) toggle.addEventListener("click", function () {
        var next = currentTheme() === "dark" ? "light" : "dark";
        root.dataset.theme = next;
        try { localStorage.setItem("book-theme", next); } catch (e) { /* storage may be off for file:// */ }
      });

      // Search: every term must appear in the section's chapter, heading or text.
      var input = document.getElementById("search-input");
      var list = document.getElementById("search-results");
      var entries = (window.BOOK_INDEX || []).map(function (entry) {
        return { entry: entry, title: (entry.chapter + " " + entry.section).toLowerCase(), text: entry.text.toLowerCase() };
      });
      function excerpt(text, term) {
        var at = text.toLowerCase().indexOf(term);
        if (at < 0) return text.slice(0, 120);
        var start = Math.max(0, at - 40);
        return (start > 0 ? "…" : "") + text.slice(start, start + 120) + (start + 120 < text.length ? "…" : "");
      }
      function search(query) {
        var terms = query.toLowerCase().split(/\s+/).filter(Boolean);
        if (terms.length === 0) return [];
        var found = [];
        entries.forEach(function (item) {
          var score = 0;
          for (var i = 0; i < terms.length; i++) {
            var inTitle = item.title.indexOf(terms[i]) >= 0;
            if (!inTitle && item.text.indexOf(terms[i]) < 0) return;
            score += inTitle ? 3 : 1;
          }
          found.push({ item: item, score: score });
        });
        found.sort(function (a, b) { return b.score - a.score; });
        return found.slice(0, 20).map(function (f) { return { entry: f.item.entry, term: terms[0] }; });
      }
      function show(results) {
        while (list.firstChild) list.removeChild(list.firstChild);
        results.forEach(function (result) {
          var li = document.createElement("li");
          var a = document.createElement("a");
          a.href = result.entry.url;
          a.textContent = result.entry.section ? result.entry.chapter + " › " + result.entry.section : result.entry.chapter;
          var span = document.createElement("span");
          span.className = "excerpt";
          span.textContent = excerpt(result.entry.text, result.term);
          li.appendChild(a);
          li.appendChild(span);
          list.appendChild(li);
        });
        if (results.length === 0 && input.value.trim()) {
          var none = document.createElement("li");
          none.textContent = "No results";
          list.appendChild(none);
        }
        list.hidden = !input.value.trim();
      }
      if (input && list) {
        input.addEventListener("input", function () { show(search(input.value)); });
        input.addEventListener("keydown", function (event) {
          if (event.key === "Escape") { input.value = ""; show([]); }
          if (event.key === "Enter") { var first = list.querySelector("a"); if (first) window.location.href = first.href; }
        });
      }

      // Live reload, only when served by `workbook serve`.
      if (window.location.protocol === "http:" || window.location.protocol === "https:") {
        var known = null;
        function poll() {
          var request = new XMLHttpRequest();
          request.open("GET", "/__reload" + (known === null ? "" : "?since=" + known));
          request.onload = function () {
            var version = parseInt(request.responseText, 10);
            if (request.status === 200 && !isNaN(version)) {
              if (known !== null && version !== known) { window.location.reload(); return; }
              known = version;
            }
            setTimeout(poll, 1000);
          };
          request.onerror = function () { setTimeout(poll, 2000); };
          request.send();
        }
        poll();
      }
      // Printed pages show every solution: open the collapsed ones for the printout.
      window.addEventListener("beforeprint", function () {
        document.querySelectorAll("details.solution").forEach(function (d) { d.open = true; });
      });
    })();
    """#
}
