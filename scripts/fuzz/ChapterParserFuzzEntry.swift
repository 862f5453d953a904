// libFuzzer entry point for the workbook's chapter parser (see scripts/fuzz-workbook.sh).
//
// Any bytes must parse to a chapter or a located problem: never trap, hang or overflow the
// stack. Every line a block names must be a line of the file, and a chapter must parse
// to the same blocks whether its lines end in LF, CRLF or a lone CR.
import Foundation

@_cdecl("LLVMFuzzerTestOneInput")
public func chapterParserFuzzTestOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Data(UnsafeBufferPointer(start: data, count: size))
    let parsed = ChapterParser.parse(path: "Chapters/50-fuzz.md", data: bytes)
    guard let chapter = parsed.chapter else {
        precondition(parsed.problems.count == 1, "an unreadable chapter gets one problem")
        return 0
    }
    let lineCount = SourceLines(chapter.source).lines.count
    for problem in parsed.problems {
        precondition(problem.line >= 1 && problem.line <= max(1, lineCount + 1), "problem line \(problem.line) of \(lineCount)")
    }
    for block in chapter.blocks {
        switch block {
        case .snippet(let snippet):
            let closingFenceLine = snippet.firstCodeLine + snippet.code.unicodeScalars.filter { $0 == "\n" }.count
            precondition(snippet.fenceLine >= 1 && closingFenceLine <= lineCount, "snippet lines out of the file")
            if let output = snippet.expectedOutput {
                precondition(output.fenceLine > closingFenceLine && output.closingFenceLine <= lineCount)
            }
        case .prose(let prose):
            precondition(prose.line >= 1 && prose.line <= max(1, lineCount))
        case .dataFile(let file):
            precondition(file.line >= 1 && file.line <= lineCount && !file.path.split(separator: "/").contains(".."))
        }
    }
    // Line endings must not matter: the same text with CRLF, and with lone CRs.
    if !chapter.source.unicodeScalars.contains("\r") {
        for ending in ["\r\n", "\r"] {
            // Scalar by scalar: Foundation's replacingOccurrences treats "\n" followed by a
            // combining mark as one composed character and leaves it alone (found by fuzzing).
            var other = ""
            for scalar in chapter.source.unicodeScalars {
                if scalar == "\n" { other += ending } else { other.unicodeScalars.append(scalar) }
            }
            let again = ChapterParser.parse(path: chapter.path, text: other)
            precondition(again.chapter?.blocks == chapter.blocks, "the blocks changed with \(ending.debugDescription) line endings")
            precondition(again.problems == parsed.problems, "the problems changed with \(ending.debugDescription) line endings")
        }
    }
    return 0
}
