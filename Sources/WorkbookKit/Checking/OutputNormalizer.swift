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
