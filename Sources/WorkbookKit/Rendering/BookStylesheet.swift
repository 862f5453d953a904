/// The book's stylesheet: light and dark themes, code and output styling, print rules.
enum BookStylesheet {
    static let css = #"""
    :root {
      --bg: #ffffff; --fg: #1d1d1f; --muted: #6e6e73; --link: #0a58ca; --rule: #d8d8dc;
      --code-bg: #f5f5f7; --out-bg: #eef6ee; --out-rule: #5a9a5a; --err: #b3261e;
      --label-bg: #e4e4e8; --trap: #b3261e; --warn: #8a5a00;
      --hl-keyword: #ad3da4; --hl-type: #703daa; --hl-string: #c41a16; --hl-number: #1c00cf;
      --hl-comment: #5d6c79; --hl-attribute: #947100; --hl-directive: #643820; --hl-label: #3e6d74;
      color-scheme: light;
    }
    :root[data-theme="dark"] {
      --bg: #1e1e20; --fg: #e8e8ea; --muted: #a1a1a6; --link: #6cb4ff; --rule: #3a3a3e;
      --code-bg: #29292c; --out-bg: #1f2c22; --out-rule: #6fbf73; --err: #ff8a80;
      --label-bg: #3a3a3e; --trap: #ff8a80; --warn: #ffcc66;
      --hl-keyword: #ff7ab2; --hl-type: #dabaff; --hl-string: #ff8170; --hl-number: #d9c97c;
      --hl-comment: #7f8c98; --hl-attribute: #cc9768; --hl-directive: #ffa14f; --hl-label: #78c2b3;
      color-scheme: dark;
    }
    @media (prefers-color-scheme: dark) {
      :root:not([data-theme="light"]) {
        --bg: #1e1e20; --fg: #e8e8ea; --muted: #a1a1a6; --link: #6cb4ff; --rule: #3a3a3e;
        --code-bg: #29292c; --out-bg: #1f2c22; --out-rule: #6fbf73; --err: #ff8a80;
        --label-bg: #3a3a3e; --trap: #ff8a80; --warn: #ffcc66;
        --hl-keyword: #ff7ab2; --hl-type: #dabaff; --hl-string: #ff8170; --hl-number: #d9c97c;
        --hl-comment: #7f8c98; --hl-attribute: #cc9768; --hl-directive: #ffa14f; --hl-label: #78c2b3;
        color-scheme: dark;
      }
    }
    * { box-sizing: border-box; }
    body { margin: 0; background: var(--bg); color: var(--fg);
      font: 17px/1.6 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; }
    a { color: var(--link); }
    main { max-width: 48rem; margin: 0 auto; padding: 1rem 1.25rem 3rem; }
    code, pre, samp { font-family: ui-monospace, "SF Mono", Menlo, Consolas, monospace; font-size: 0.9em; }
    .topbar { position: sticky; top: 0; z-index: 2; display: flex; gap: 1rem; align-items: center;
      padding: 0.5rem 1.25rem; background: var(--bg); border-bottom: 1px solid var(--rule); }
    .topbar .home { font-weight: 600; text-decoration: none; color: var(--fg); }
    .search { position: relative; flex: 1; max-width: 24rem; margin-left: auto; }
    .search input { width: 100%; padding: 0.3rem 0.6rem; border: 1px solid var(--rule); border-radius: 6px;
      background: var(--code-bg); color: var(--fg); font: inherit; }
    #search-results { position: absolute; right: 0; left: 0; margin: 0.25rem 0 0; padding: 0; list-style: none;
      max-height: 70vh; overflow-y: auto; background: var(--bg); border: 1px solid var(--rule); border-radius: 6px; }
    #search-results li { padding: 0.4rem 0.6rem; border-bottom: 1px solid var(--rule); }
    #search-results .excerpt { display: block; color: var(--muted); font-size: 0.85em; }
    #theme-toggle { border: 1px solid var(--rule); background: var(--code-bg); color: var(--fg);
      border-radius: 6px; padding: 0.2rem 0.5rem; cursor: pointer; font: inherit; }
    h1, h2, h3, h4 { line-height: 1.25; }
    .anchor { visibility: hidden; text-decoration: none; color: var(--muted); }
    h1:hover .anchor, h2:hover .anchor, h3:hover .anchor, h4:hover .anchor { visibility: visible; }
    figure { margin: 1.25rem 0; }
    figcaption { font-size: 0.85em; color: var(--muted); margin-bottom: 0.25rem; }
    pre { overflow-x: auto; padding: 0.75rem 1rem; margin: 0; border-radius: 6px; }
    pre.code { background: var(--code-bg); }
    .output { margin-top: 0.25rem; border-left: 4px solid var(--out-rule); background: var(--out-bg); border-radius: 0 6px 6px 0; }
    .output pre { background: transparent; }
    .output .stderr { color: var(--err); }
    .label { display: inline-block; padding: 0 0.4em; border-radius: 4px; background: var(--label-bg);
      font-size: 0.8em; font-weight: 600; text-transform: uppercase; letter-spacing: 0.03em; }
    .status { margin: 0; padding: 0.4rem 1rem 0; font-size: 0.9em; }
    .status-detail { color: var(--muted); }
    .status-trap .label, .status-problem .label, .status-exited .label { background: var(--trap); color: var(--bg); }
    .status-compile-fail .label, .status-timeout .label, .status-not-run .label { background: var(--warn); color: var(--bg); }
    .label.exercise { background: var(--link); color: var(--bg); }
    .problems { border: 1px solid var(--trap); border-radius: 6px; padding: 0.25rem 0.75rem; }
    details.solution { margin: 0.5rem 0 1.25rem; border: 1px solid var(--rule); border-radius: 6px; padding: 0.25rem 0.75rem; }
    details.solution summary { cursor: pointer; font-weight: 600; }
    .pager { display: flex; justify-content: space-between; gap: 1rem; max-width: 48rem; margin: 0 auto; padding: 1rem 1.25rem 2rem;
      border-top: 1px solid var(--rule); }
    .pager .next { margin-left: auto; text-align: right; }
    .toc ol { padding-left: 1.25rem; }
    .toc .sections { font-size: 0.92em; }
    .hl-keyword { color: var(--hl-keyword); font-weight: 600; }
    .hl-type { color: var(--hl-type); }
    .hl-string, .hl-regex { color: var(--hl-string); }
    .hl-number { color: var(--hl-number); }
    .hl-comment { color: var(--hl-comment); font-style: italic; }
    .hl-attribute { color: var(--hl-attribute); }
    .hl-directive { color: var(--hl-directive); }
    .hl-label { color: var(--hl-label); }
    @media print {
      /* Paper is white whatever theme the screen uses: back to the light palette. */
      :root, :root[data-theme="dark"], :root:not([data-theme="light"]) {
        --bg: #ffffff; --fg: #000000; --muted: #444444; --link: #000000; --rule: #999999;
        --code-bg: #f5f5f7; --out-bg: #f4f4f4; --out-rule: #000000; --err: #000000;
        --label-bg: #e4e4e8; --trap: #000000; --warn: #000000;
        --hl-keyword: #ad3da4; --hl-type: #703daa; --hl-string: #c41a16; --hl-number: #1c00cf;
        --hl-comment: #5d6c79; --hl-attribute: #947100; --hl-directive: #643820; --hl-label: #3e6d74;
        color-scheme: light;
      }
      .topbar, .pager, .anchor, #search-results { display: none !important; }
      body { font-size: 11pt; background: #fff; color: #000; }
      main { max-width: none; padding: 0; }
      pre { white-space: pre-wrap; overflow-wrap: anywhere; overflow: visible; }
      .output { break-inside: avoid; border-left-color: #000; background: #f4f4f4; }
      .output .stderr { color: #000; font-style: italic; }
      details.solution { border: none; padding: 0; }
      details.solution > summary { list-style: none; }
      figure { break-inside: avoid; }
    }
    """#
}
