import Foundation
import WorkbookKit

/// Everything the tool prints goes through here, unbuffered, so that progress shows at
/// once in a pipe or a log (`serve`, CI).
enum Terminal {
    private static func print(_ items: String..., terminator: String = "\n") {
        FileHandle.standardOutput.write(Data((items.joined(separator: " ") + terminator).utf8))
    }

    private static func print() { print("") }

    static let colours = isatty(1) == 1 && ProcessInfo.processInfo.environment["NO_COLOR"] == nil

    static func say(_ text: String) { print(text) }

    static func warn(_ text: String) {
        FileHandle.standardError.write(Data("warning: \(text)\n".utf8))
    }

    static func printProblems(_ problems: [Problem]) {
        for problem in problems { print(problem.description) }
    }

    static func printMismatch(_ mismatch: Mismatch) {
        print(mismatch.report, terminator: mismatch.report.hasSuffix("\n") ? "" : "\n")
    }

    /// Each snippet that ran: a heading with its place, then its output (standard error in red on a terminal).
    static func printRun(chapter: Chapter, run: ChapterRun) {
        for snippet in chapter.snippets {
            guard let result = run.result(for: snippet.index), result.outcome != .notRun else { continue }
            if snippet.attributes.fileName != nil { continue }
            var labels: [String] = []
            if snippet.attributes.isHidden { labels.append("hidden") }
            if snippet.attributes.mode != .run { labels.append(snippet.attributes.mode.rawValue) }
            if snippet.attributes.role != .plain { labels.append(snippet.attributes.role.rawValue) }
            let suffix = labels.isEmpty ? "" : " (\(labels.joined(separator: ", ")))"
            let heading = "── \(chapter.path):\(snippet.fenceLine)\(suffix) "
            print(colours ? "\u{1B}[1m\(heading)\u{1B}[0m" : heading)
            for segment in result.output.segments {
                if segment.stream == .stderr && colours {
                    print("\u{1B}[31m\(segment.text)\u{1B}[0m", terminator: "")
                } else {
                    print(segment.text, terminator: "")
                }
            }
            if let last = result.output.text.last, last != "\n" { print() }
            switch result.outcome {
            case .trapped(let signal): print("[the program stopped with signal \(signal)\(result.trapLocation.map { " at \($0)" } ?? "")]")
            case .exited(let status): print("[the program exited with status \(status)]")
            case .timedOut, .printedTooMuch: print("[\(result.outcome.sentence)]")
            case .failedToCompile: print("[does not compile, as expected]")
            case .completed, .notRun: break
            }
        }
    }
}
