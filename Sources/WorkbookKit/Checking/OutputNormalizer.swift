import Foundation

/// Makes captured output the same on every machine: absolute paths that depend on where
/// the book runs are replaced by placeholders.
///
/// - the chapter's working directory becomes `<workdir>`,
/// - the tool's temporary build directory becomes `<build>`,
/// - the repository root becomes `<repo>`.
///
/// This is applied to what programs print before it is recorded, rendered or compared, so
/// the book shows the placeholders too. Values that change on every run (addresses, UUIDs,
/// dates) are not rewritten: chapters match them with `…` (see ``OutputMatcher``).
public struct OutputNormalizer: Sendable {
    public var packageRoot: String
    public var scratch: String
    public var workingDirectory: String?

    public init(packageRoot: String, scratch: String, workingDirectory: String? = nil) {
        self.packageRoot = packageRoot
        self.scratch = scratch
        self.workingDirectory = workingDirectory
    }

    /// Removes the stack trace the Swift runtime prints after a fatal error in a debug build
    /// (`Current stack trace:` and its numbered frames): addresses differ on every run and
    /// the frames name the tool's temporary files. The `Fatal error: …` line stays.
    public static func removeRuntimeBacktrace(_ text: String) -> String {
        var text = text
        // With the backtracer on, the runtime announces it on standard error:
        // "\n*** Signal 4: Backtracing from 0x7f…... done ***\n\n". The backtrace itself goes to a file.
        while let start = text.range(of: "*** Signal "),
              let end = text.range(of: "***", range: text.index(start.upperBound, offsetBy: 0)..<text.endIndex),
              text[start.upperBound..<end.lowerBound].contains("Backtracing from") {
            var lower = start.lowerBound
            if lower > text.startIndex, text[text.index(before: lower)] == "\n" { lower = text.index(before: lower) }
            var upper = end.upperBound
            for _ in 0..<2 where upper < text.endIndex && text[upper] == "\n" { upper = text.index(after: upper) }
            text.replaceSubrange(lower..<upper, with: "")
        }
        guard text.contains("Current stack trace:") else { return text }
        var kept: [Substring] = []
        var inTrace = false
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if line == "Current stack trace:" { inTrace = true; continue }
            if inTrace {
                let fields = line.split(separator: " ", omittingEmptySubsequences: true)
                if fields.count >= 3, Int(fields[0]) != nil, fields.contains(where: { $0.hasPrefix("0x") }) { continue }
                inTrace = false
            }
            kept.append(line)
        }
        return kept.joined(separator: "\n")
    }

    public func normalize(_ text: String) -> String {
        var replacements: [(String, String)] = []
        func add(_ path: String?, _ placeholder: String) {
            guard let path, path.count > 1 else { return }
            let trimmed = path.hasSuffix("/") ? String(path.dropLast()) : path
            replacements.append((trimmed, placeholder))
            let resolved = URL(fileURLWithPath: trimmed).resolvingSymlinksInPath().path
            if resolved != trimmed { replacements.append((resolved, placeholder)) }
        }
        add(workingDirectory, "<workdir>")
        add(scratch, "<build>")
        add(packageRoot, "<repo>")
        // Longest first, so a working directory inside the build directory wins.
        var result = text.replacingOccurrences(of: "\r\n", with: "\n")
        for (path, placeholder) in replacements.sorted(by: { $0.0.count > $1.0.count }) where result.contains(path) {
            result = result.replacingOccurrences(of: path, with: placeholder)
        }
        return result
    }
}
