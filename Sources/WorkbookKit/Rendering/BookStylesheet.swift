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
      --hl-comment: #97a3af; --hl-attribute: #cc9768; --hl-directive: #ffa14f; --hl-label: #78c2b3;
      color-scheme: dark;
    }
    @media (prefers-color-scheme: dark) {
      :root:not([data-theme="light"]) {
        --bg: #1e1e20; --fg: #e8e8ea; --muted: #a1a1a6; --link: #6cb4ff; --rule: #3a3a3e;
        --code-bg: #29292c; --out-bg: #1f2c22; --out-rule: #6fbf73; --err: #ff8a80;
        --label-bg: #3a3a3e; --trap: #ff8a80; --warn: #ffcc66;
        --hl-keyword: #ff7ab2; --hl-type: #dabaff; --hl-string: #ff8170; --hl-number: #d9c97c;
        --hl-comment: #97a3af; --hl-attribute: #cc9768; --hl-directive: #ffa14f; --hl-label: #78c2b3;
        color-scheme: dark;
      }
    }
    :root { --topbar-height: 3rem; --callout-bg: #fff6e0; --callout-rule: #b07d00; }
    :root[data-theme="dark"] { --callout-bg: #2e2718; --callout-rule: #e0a82e; }
    @media (prefers-color-scheme: dark) {
      :root:not([data-theme="light"]) { --callout-bg: #2e2718; --callout-rule: #e0a82e; }
    }
    * { box-sizing: border-box; }
    :focus-visible { outline: 2px solid var(--link); outline-offset: 2px; }
    .skip-link { position: absolute; left: -100vw; top: 0.5rem; z-index: 10; padding: 0.25rem 0.75rem;
      background: var(--bg); border: 1px solid var(--rule); border-radius: 6px; }
    .skip-link:focus { left: 1rem; }
    .layout { display: flex; align-items: flex-start; }
    .page { flex: 1; min-width: 0; }
    .sidebar { flex: 0 0 17rem; position: sticky; top: var(--topbar-height); height: calc(100vh - var(--topbar-height));
      overflow-y: auto; padding: 1rem 0.75rem 2rem 1rem; border-right: 1px solid var(--rule); font-size: 0.88rem; line-height: 1.45; }
    .sidebar ol { list-style: none; margin: 0; padding: 0; }
    .sidebar-chapters > li { margin: 0.2rem 0; }
    .sidebar-sections { padding-left: 1.1rem !important; margin: 0.15rem 0 0.4rem !important; }
    .sidebar-sections li { margin: 0.15rem 0; }
    .sidebar a { color: var(--fg); text-decoration: none; }
    .sidebar a:hover { text-decoration: underline; }
    .sidebar a[aria-current="page"] { color: var(--link); font-weight: 700; }
    .sidebar a.reading { color: var(--link); font-weight: 600; }
    .sidebar summary { cursor: pointer; }
    #sidebar-toggle { display: none; border: 1px solid var(--rule); background: var(--code-bg); color: var(--fg);
      border-radius: 6px; padding: 0.2rem 0.5rem; cursor: pointer; font: inherit; }
    @media (max-width: 60rem) {
      #sidebar-toggle { display: inline-block; }
      .sidebar { display: none; position: fixed; top: var(--topbar-height); left: 0; bottom: 0; z-index: 3;
        width: min(20rem, 85vw); height: auto; background: var(--bg); box-shadow: 0 0 1rem rgba(0, 0, 0, 0.3); }
      body.sidebar-open .sidebar { display: block; }
    }
    blockquote { margin: 1rem 0; padding: 0.1rem 1rem; border-left: 4px solid var(--rule); }
    blockquote.callout.on-linux { border-left-color: var(--callout-rule); background: var(--callout-bg); border-radius: 0 6px 6px 0; }
    .run-command { margin-top: -0.5rem; color: var(--muted); font-size: 0.9em; }
    .code-block { position: relative; }
    .copy-button { position: absolute; top: 0.35rem; right: 0.35rem; padding: 0.05rem 0.45rem; font: 0.75rem/1.4 system-ui, sans-serif;
      border: 1px solid var(--rule); border-radius: 4px; background: var(--bg); color: var(--fg); cursor: pointer; opacity: 0.85; }
    .copy-button:hover, .copy-button:focus-visible { opacity: 1; }
    .edit-button { position: absolute; top: 0.35rem; right: 4rem; padding: 0.05rem 0.45rem; font: 0.75rem/1.4 system-ui, sans-serif;
      border: 1px solid var(--rule); border-radius: 4px; background: var(--bg); color: var(--fg); cursor: pointer; }
    .practice { margin: 0; }
    .practice-code { display: block; width: 100%; padding: 0.75rem 1rem; border: 1px solid var(--link); border-radius: 6px;
      background: var(--code-bg); color: var(--fg); font: 0.9em/1.5 ui-monospace, "SF Mono", Menlo, Consolas, monospace; tab-size: 4; }
    .practice-actions { display: flex; flex-wrap: wrap; gap: 0.5rem; align-items: center; margin: 0.4rem 0; }
    .practice-actions button { border: 1px solid var(--rule); background: var(--code-bg); color: var(--fg); border-radius: 6px;
      padding: 0.15rem 0.6rem; cursor: pointer; font: inherit; font-size: 0.9em; }
    .practice-status { color: var(--muted); font-size: 0.9em; }
    .practice-result { border-left: 4px solid var(--out-rule); background: var(--out-bg); border-radius: 0 6px 6px 0; padding: 0.25rem 0; }
    .practice-result .stderr { color: var(--err); font-style: italic; }
    .practice-verdict { margin: 0.25rem 1rem; font-weight: 600; }
    .practice-matches { color: var(--fg); }
    .practice-differs, .practice-problem { color: var(--err); }
    .practice-label { margin: 0.25rem 1rem; font-size: 0.9em; }
    .practice-problem { margin: 0.25rem 1rem; font-size: 0.9em; }
    .reload-notice { position: sticky; top: 0; z-index: 5; margin: 0; padding: 0.5rem 1rem; background: var(--callout-bg);
      border-bottom: 2px solid var(--callout-rule); text-align: center; }
    body { margin: 0; background: var(--bg); color: var(--fg);
      font: 17px/1.6 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; }
    a { color: var(--link); }
    main { max-width: 48rem; margin: 0 auto; padding: 1rem 1.25rem 3rem; }
    code, pre, samp { font-family: ui-monospace, "SF Mono", Menlo, Consolas, monospace; font-size: 0.9em; }
    /* Long API names in prose break rather than widen a narrow page. */
    :not(pre) > code { overflow-wrap: anywhere; }
    .topbar { position: sticky; top: 0; z-index: 4; display: flex; gap: 1rem; align-items: center; height: var(--topbar-height);
      padding: 0.5rem 1.25rem; background: var(--bg); border-bottom: 1px solid var(--rule); }
    .topbar .home { font-weight: 600; text-decoration: none; color: var(--fg); min-width: 0;
      white-space: nowrap; overflow: hidden; text-overflow: ellipsis; }
    .search { position: relative; flex: 1 1 8rem; min-width: 6rem; max-width: 24rem; margin-left: auto; }
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
    /* Standard error is red and slanted, so it stands apart without colour too. */
    .output .stderr { color: var(--err); font-style: italic; }
    .label { display: inline-block; padding: 0 0.4em; border-radius: 4px; background: var(--label-bg);
      color: var(--fg); font-size: 0.8em; font-weight: 600; text-transform: uppercase; letter-spacing: 0.03em; }
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
      .topbar, .pager, .anchor, #search-results, .sidebar, .skip-link, .copy-button, .edit-button, .practice, .reload-notice { display: none !important; }
      .layout { display: block; }
      blockquote.callout.on-linux { background: none; border-left-color: #000; }
      body { font-size: 11pt; background: #fff; color: #000; }
      main { max-width: none; padding: 0; }
      pre { white-space: pre-wrap; overflow-wrap: anywhere; overflow: visible; }
      .output { break-inside: avoid; border-left-color: #000; background: #f4f4f4; }
      .output .stderr { color: #000; font-style: italic; }
      details.solution { border: none; padding: 0; }
      details.solution > summary { list-style: none; }
      /* Solutions print even when closed (the script also opens them before printing). */
      details.solution::details-content { content-visibility: visible; display: block; }
      figure { break-inside: avoid; }
    }
    """#
}
