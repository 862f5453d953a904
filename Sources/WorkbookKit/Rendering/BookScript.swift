/// The book's script: theme toggle, search over `window.BOOK_INDEX`, the sidebar, keyboard
/// shortcuts, copy buttons, live reload, and (on pages `workbook serve` serves) editing,
/// running and saving the examples.
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

      // The sidebar: the current chapter in view; on narrow screens it opens over the text.
      var sidebar = document.getElementById("sidebar");
      var sidebarToggle = document.getElementById("sidebar-toggle");
      if (sidebar) {
        var currentEntry = sidebar.querySelector('[aria-current="page"]');
        if (currentEntry && currentEntry.scrollIntoView) currentEntry.scrollIntoView({ block: "center" });
        // Clicking a chapter's title follows the link; only the marker opens or closes it.
        sidebar.querySelectorAll("summary a").forEach(function (a) {
          a.addEventListener("click", function (event) { event.stopPropagation(); });
        });
      }
      function setSidebarOpen(open) {
        document.body.classList.toggle("sidebar-open", open);
        if (sidebarToggle) sidebarToggle.setAttribute("aria-expanded", open ? "true" : "false");
      }
      if (sidebarToggle) sidebarToggle.addEventListener("click", function () {
        setSidebarOpen(!document.body.classList.contains("sidebar-open"));
      });
      if (sidebar) sidebar.addEventListener("click", function (event) {
        if (event.target.closest && event.target.closest("a")) setSidebarOpen(false);
      });

      // The section being read is marked in the sidebar as the page scrolls.
      var sectionLinks = sidebar ? Array.prototype.slice.call(sidebar.querySelectorAll('.sidebar-sections a[href^="#"]')) : [];
      function markReading() {
        var reading = null;
        sectionLinks.forEach(function (link) {
          var target = document.getElementById(decodeURIComponent(link.getAttribute("href").slice(1)));
          if (target && target.getBoundingClientRect().top < 120) reading = link;
        });
        sectionLinks.forEach(function (link) { link.classList.toggle("reading", link === reading); });
      }
      if (sectionLinks.length) {
        window.addEventListener("scroll", markReading, { passive: true });
        markReading();
      }

      // Keyboard: ← and → turn the page, / goes to search, Escape closes the sidebar.
      document.addEventListener("keydown", function (event) {
        if (event.altKey || event.ctrlKey || event.metaKey || event.shiftKey) return;
        var target = event.target;
        var typing = target && (target.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(target.tagName));
        // Turning the page would drop an unsaved edit of an example.
        if (unsavedEdits > 0 || (target && target.closest && target.closest(".practice"))) typing = true;
        if (event.key === "Escape") setSidebarOpen(false);
        if (typing) return;
        if (event.key === "/" && input) { event.preventDefault(); input.focus(); input.select(); return; }
        var rel = event.key === "ArrowLeft" ? "prev" : (event.key === "ArrowRight" ? "next" : null);
        if (!rel) return;
        var link = document.querySelector('.pager a[rel="' + rel + '"]');
        if (link) { event.preventDefault(); window.location.href = link.href; }
      });

      // A copy button on every code block. The clipboard API needs a secure context, which a
      // page opened from file:// may not be; a hidden text area and execCommand cover that.
      function copyText(text, done) {
        if (navigator.clipboard && window.isSecureContext) {
          navigator.clipboard.writeText(text).then(function () { done(true); }, function () { done(fallbackCopy(text)); });
        } else {
          done(fallbackCopy(text));
        }
      }
      function fallbackCopy(text) {
        var area = document.createElement("textarea");
        area.value = text;
        area.setAttribute("readonly", "");
        area.style.position = "fixed";
        area.style.opacity = "0";
        document.body.appendChild(area);
        area.select();
        var copied = false;
        try { copied = document.execCommand("copy"); } catch (e) { copied = false; }
        document.body.removeChild(area);
        return copied;
      }
      document.querySelectorAll("pre.code").forEach(function (pre) {
        var wrapper = document.createElement("div");
        wrapper.className = "code-block";
        pre.parentNode.insertBefore(wrapper, pre);
        wrapper.appendChild(pre);
        var button = document.createElement("button");
        button.type = "button";
        button.className = "copy-button";
        button.textContent = "Copy";
        button.setAttribute("aria-label", "Copy this code");
        button.addEventListener("click", function () {
          copyText(pre.textContent, function (copied) {
            button.textContent = copied ? "Copied" : "Press Ctrl+C";
            if (!copied) {
              var range = document.createRange();
              range.selectNodeContents(pre);
              var selection = window.getSelection();
              selection.removeAllRanges();
              selection.addRange(range);
            }
            setTimeout(function () { button.textContent = "Copy"; }, 1500);
          });
        });
        wrapper.appendChild(button);
      });

      // Practising in the page: only pages `workbook serve` serves carry its secret.
      var secretMeta = document.querySelector('meta[name="workbook-secret"]');
      var article = document.querySelector("article[data-chapter]");
      var unsavedEdits = 0;
      window.addEventListener("beforeunload", function (event) {
        if (unsavedEdits > 0) { event.preventDefault(); event.returnValue = ""; }
      });
      var bodyLimit = 256 * 1024;
      function post(path, edit, done) {
        var body = JSON.stringify(edit);
        if (new Blob([body]).size > bodyLimit) { done(413, null, "the edit is larger than 256 KiB"); return; }
        var request = new XMLHttpRequest();
        request.open("POST", path);
        request.setRequestHeader("Content-Type", "application/json");
        request.setRequestHeader("X-Workbook-Secret", secretMeta.getAttribute("content"));
        request.onload = function () {
          var body = null;
          try { body = JSON.parse(request.responseText); } catch (e) { body = null; }
          done(request.status, body, request.responseText);
        };
        request.onerror = function () { done(0, null, "the server did not answer (is workbook serve still running?)"); };
        request.send(body);
      }
      function element(tag, className, text) {
        var e = document.createElement(tag);
        if (className) e.className = className;
        if (text !== undefined) e.textContent = text;
        return e;
      }
      function addEditor(figure) {
        var wrapper = figure.querySelector(".code-block");
        var pre = wrapper && wrapper.querySelector("pre.code");
        var index = parseInt(figure.id.replace("snippet-", ""), 10);
        var line = parseInt(figure.getAttribute("data-line"), 10);
        if (!pre || isNaN(index)) return;
        var original = pre.textContent;
        var edit = element("button", "edit-button", "Edit");
        edit.type = "button";
        edit.setAttribute("aria-label", "Edit and run this example");
        wrapper.appendChild(edit);
        var panel = element("div", "practice");
        panel.hidden = true;
        var area = element("textarea", "practice-code");
        area.spellcheck = false;
        area.setAttribute("aria-label", "The example's code, editable");
        var actions = element("div", "practice-actions");
        var run = element("button", null, "Run"), save = element("button", null, "Save to chapter"), cancel = element("button", null, "Close");
        cancel.title = "Hide the editor; your edit stays in it until you save it or reload the page";
        [run, save, cancel].forEach(function (b) { b.type = "button"; actions.appendChild(b); });
        var status = element("span", "practice-status");
        status.setAttribute("role", "status");
        actions.appendChild(status);
        var result = element("div", "practice-result");
        result.hidden = true;
        panel.appendChild(area);
        panel.appendChild(actions);
        panel.appendChild(result);
        wrapper.parentNode.insertBefore(panel, wrapper.nextSibling);
        var dirty = false;
        function setDirty(value) {
          if (value !== dirty) unsavedEdits += value ? 1 : -1;
          dirty = value;
        }
        area.addEventListener("input", function () { setDirty(area.value !== original); });
        area.addEventListener("keydown", function (event) {
          if (event.key === "Tab" && !event.shiftKey) {
            event.preventDefault();
            var start = area.selectionStart;
            area.setRangeText("    ", start, area.selectionEnd, "end");
            setDirty(area.value !== original);
          }
          if (event.key === "Enter" && (event.ctrlKey || event.metaKey)) { event.preventDefault(); run.click(); }
        });
        edit.addEventListener("click", function () {
          area.value = dirty ? area.value : original;
          area.rows = Math.min(30, Math.max(4, original.split("\n").length + 1));
          panel.hidden = false;
          wrapper.hidden = true;
          area.focus();
        });
        cancel.addEventListener("click", function () {
          panel.hidden = true;
          wrapper.hidden = false;
          edit.focus();
        });
        function edited() {
          return { chapter: article.getAttribute("data-chapter"), snippet: index, code: area.value, original: original, line: line };
        }
        function busy(on, text) {
          run.disabled = save.disabled = on;
          status.textContent = text;
        }
        run.addEventListener("click", function () {
          busy(true, "Running… (the chapter is compiled and run, which takes a while)");
          post("/__run", edited(), function (code, report, text) {
            busy(false, "");
            while (result.firstChild) result.removeChild(result.firstChild);
            result.hidden = false;
            if (code !== 200 || !report) {
              result.appendChild(element("p", "practice-verdict practice-differs", "Not run: " + text));
              return;
            }
            result.appendChild(element("p", "practice-verdict " + (report.matches ? "practice-matches" : "practice-differs"),
              (report.matches ? "✓ Matches the book's output" : "✗ Differs from the book's output") + " (" + report.outcome + ")"));
            var output = element("pre", "practice-output");
            var samp = element("samp");
            report.output.forEach(function (segment) {
              samp.appendChild(element("span", segment.stream === "stderr" ? "stderr" : null, segment.text));
            });
            if (!report.output.length) samp.textContent = "(no output)";
            output.appendChild(samp);
            result.appendChild(output);
            if (report.diff) {
              result.appendChild(element("p", "practice-label", "From the book's output to yours:"));
              result.appendChild(element("pre", "practice-diff", report.diff));
            }
            report.problems.forEach(function (problem) { result.appendChild(element("p", "practice-problem", problem)); });
          });
        });
        save.addEventListener("click", function () {
          busy(true, "Saving…");
          // What was sent is what is saved: text typed while the save is under way stays unsaved.
          var sent = edited();
          post("/__save", sent, function (code, body, text) {
            busy(false, code === 200 ? "Saved to Chapters/" + article.getAttribute("data-chapter") + "; the page reloads when the book is rebuilt." : "Not saved: " + text);
            if (code === 200) { original = sent.code; setDirty(area.value !== original); }
          });
        });
      }
      if (secretMeta && article) {
        // Examples that run; `ignore` and `no-run` ones have no output to compare.
        document.querySelectorAll("figure.snippet:not(.mode-ignore):not(.mode-no-run)").forEach(addEditor);
      }

      // Live reload, only when served by `workbook serve`; never over an unsaved edit.
      if (window.location.protocol === "http:" || window.location.protocol === "https:") {
        var known = null;
        function poll() {
          var request = new XMLHttpRequest();
          request.open("GET", "/__reload" + (known === null ? "" : "?since=" + known));
          request.onload = function () {
            var version = parseInt(request.responseText, 10);
            if (request.status === 200 && !isNaN(version)) {
              if (known !== null && version !== known) {
                if (unsavedEdits === 0) { window.location.reload(); return; }
                var notice = document.getElementById("reload-notice");
                if (!notice) {
                  notice = element("p", "reload-notice", "The book was rebuilt. Save your edits, then reload the page (unsaved edits are lost on reload).");
                  notice.id = "reload-notice";
                  notice.setAttribute("role", "status");
                  document.body.insertBefore(notice, document.body.firstChild);
                }
              }
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
