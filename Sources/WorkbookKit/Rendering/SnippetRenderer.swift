/// Renders one snippet: its caption, highlighted code and the output beneath it.
struct SnippetRenderer {
    /// The chapter run, when there is one; otherwise the recorded output is shown.
    let run: ChapterRun?

    /// The snippet's HTML, or nil for hidden snippets, which run but are not shown.
    func render(_ snippet: Snippet) -> HTML? {
        guard !snippet.attributes.isHidden else { return nil }
        var classes = ["snippet", "mode-\(snippet.attributes.mode.rawValue)"]
        if snippet.attributes.role != .plain { classes.append("role-\(snippet.attributes.role.rawValue)") }
        var html: HTML = "<figure class=\"\(classes.joined(separator: " "))\" id=\"snippet-\(snippet.index)\" data-line=\"\(snippet.fenceLine)\">\n"
        html += caption(for: snippet)
        html += "<pre class=\"code\"><code class=\"language-swift\">\(SwiftHighlighter.highlight(snippet.code))</code></pre>\n"
        if let output = outputBlock(for: snippet) {
            html += output
        }
        html += "</figure>\n"
        if snippet.attributes.role == .solution {
            return "<details class=\"solution\">\n<summary>Solution</summary>\n\(html)</details>\n"
        }
        return html
    }

    /// A data file: plain escaped text under its file name.
    func render(_ file: DataFile) -> HTML {
        let language = file.language.isEmpty ? "text" : file.language
        return """
            <figure class="datafile">
            <figcaption><span class="label">file</span> <code>\(file.path)</code></figcaption>
            <pre class="code"><code class="language-\(language)">\(file.contents)</code></pre>
            </figure>

            """
    }

    private func caption(for snippet: Snippet) -> HTML {
        var parts: [HTML] = []
        if snippet.attributes.role == .exercise { parts.append("<span class=\"label exercise\">Exercise</span>") }
        if let name = snippet.attributes.fileName { parts.append("<code class=\"filename\">\(name)</code>") }
        switch snippet.attributes.mode {
        case .ignore: parts.append("<span class=\"label\">not compiled</span>")
        case .noRun: parts.append("<span class=\"label\">compiled, not run</span>")
        case .run, .compileFail, .trap: break
        }
        guard !parts.isEmpty else { return .empty }
        return "<figcaption>\(HTML(joining: parts, separator: " "))</figcaption>\n"
    }

    /// The output box, or nil when there is nothing to show.
    private func outputBlock(for snippet: Snippet) -> HTML? {
        let segments: [SnippetOutput.Segment]
        let status: HTML?
        if let result = run?.result(for: snippet.index) {
            segments = result.output.segments
            status = SnippetRenderer.status(result.outcome, attributes: snippet.attributes, location: result.trapLocation)
        } else if let expected = snippet.expectedOutput {
            // No run: the recorded output, labelled by what the snippet is declared to do.
            segments = [SnippetOutput.Segment(stream: .stdout, text: expected.text)]
            status = SnippetRenderer.declaredStatus(snippet.attributes.mode)
        } else {
            return nil
        }
        let visible = segments.filter { !$0.text.isEmpty }
        guard !visible.isEmpty || status != nil else { return nil }
        var html: HTML = "<div class=\"output\">\n"
        if let status { html += status }
        if !visible.isEmpty {
            let body = HTML(joining: visible.map { segment in
                let text = OutputEscapes.visible(segment.text)
                return segment.stream == .stderr ? "<span class=\"stderr\">\(text)</span>" : HTML(escaping: text)
            })
            html += "<pre class=\"output-text\"><samp>\(body)</samp></pre>\n"
        }
        html += "</div>\n"
        return html
    }

    /// The label for how a run ended; nil when it simply completed.
    static func status(_ outcome: SnippetOutcome, attributes: SnippetAttributes, location: String? = nil) -> HTML? {
        switch outcome {
        case .completed:
            return nil
        case .notRun:
            // ignore and no-run snippets say so in their caption; an exercise stub is not
            // run when its solution follows, which shows the output instead.
            let expected = attributes.mode == .ignore || attributes.mode == .noRun || attributes.role == .exercise
            return expected ? nil : label("not-run", "not run", nil)
        case .trapped(let signal):
            return label("trap", "trap", "the program stopped with \(signalName(signal))" + (location.map { " at \($0)" } ?? ""))
        case .exited(let status):
            return label("exited", "exited", "the program exited with status \(status)")
        case .timedOut(let seconds):
            return label("timeout", "timed out", "killed after \(formatSeconds(seconds)) seconds")
        case .printedTooMuch(let limit):
            return label("exited", "too much output", "stopped after printing more than \(limit >> 20) MiB")
        case .failedToCompile:
            return label("compile-fail", "does not compile", nil)
        }
    }

    /// The label for recorded output when there is no run to consult.
    static func declaredStatus(_ mode: SnippetAttributes.Mode) -> HTML? {
        switch mode {
        case .trap: label("trap", "trap", nil)
        case .compileFail: label("compile-fail", "does not compile", nil)
        case .run, .noRun, .ignore: nil
        }
    }

    private static func label(_ kind: String, _ text: String, _ detail: String?) -> HTML {
        let detailHTML: HTML = detail.map { " <span class=\"status-detail\">\($0)</span>" } ?? .empty
        return "<p class=\"status status-\(kind)\"><span class=\"label\">\(text)</span>\(detailHTML)</p>\n"
    }

    private static func signalName(_ signal: Int32) -> String {
        let names: [Int32: String] = [4: "SIGILL", 5: "SIGTRAP", 6: "SIGABRT", 8: "SIGFPE", 9: "SIGKILL", 11: "SIGSEGV"]
        return names[signal].map { "signal \(signal) (\($0))" } ?? "signal \(signal)"
    }

    private static func formatSeconds(_ seconds: Double) -> String {
        seconds == seconds.rounded() && abs(seconds) < 1e9 ? String(Int(seconds)) : String(seconds)
    }
}
