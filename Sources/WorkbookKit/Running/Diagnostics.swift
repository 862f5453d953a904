/// Reads compiler diagnostics and runtime messages.
enum Diagnostics {
    struct Diagnostic: Equatable {
        var file: String
        var line: Int
        var column: Int?
        var severity: String
        var message: String
        var isError: Bool { severity == "error" }
    }

    /// Diagnostics in swiftc's `llvm` style: `file:line:column: severity: message`.
    static func parse(_ text: String, chapterPath: String) -> [Diagnostic] {
        text.split(separator: "\n").compactMap { parseLine(String($0)) }
    }

    static func parseLine(_ line: String) -> Diagnostic? {
        for severity in ["error", "warning", "note", "remark"] {
            guard let range = line.range(of: ": \(severity): ") else { continue }
            let location = line[..<range.lowerBound].split(separator: ":", omittingEmptySubsequences: false)
            guard location.count >= 2 else { continue }
            // file:line:column or file:line
            let numbers = location.suffix(2).map { Int($0) }
            let file: String
            let lineNumber: Int
            var column: Int?
            if let l = numbers[0], let c = numbers[1] {
                file = location.dropLast(2).joined(separator: ":")
                lineNumber = l
                column = c
            } else if let l = numbers[1] {
                file = location.dropLast(1).joined(separator: ":")
                lineNumber = l
            } else {
                continue
            }
            guard !file.isEmpty else { continue }
            return Diagnostic(file: file, line: lineNumber, column: column, severity: severity,
                              message: "\(severity): " + line[range.upperBound...])
        }
        return nil
    }

    /// The `file:line:column: error: …` lines of a compiler's output, one per line,
    /// without the source excerpts and carets: what a compile-fail snippet records.
    static func errorLines(_ text: String) -> String {
        let lines = text.split(separator: "\n").filter { line in
            parseLine(String(line))?.isError == true
        }
        return lines.isEmpty ? "" : lines.joined(separator: "\n") + "\n"
    }

    /// The chapter line in a runtime message such as
    /// `Chapters/01-x.md:12: Fatal error: …`, if there is one.
    static func runtimeLocation(in text: String, chapterPath: String) -> Int? {
        for line in text.split(separator: "\n").reversed() {
            guard let range = line.range(of: chapterPath + ":") else { continue }
            let digits = line[range.upperBound...].prefix { $0.isNumber }
            if let number = Int(digits) { return number }
        }
        return nil
    }
}
