// libFuzzer entry point for the workbook's output matcher (see scripts/fuzz-workbook.sh).
//
// The input is a recording and an output, split at the first 0xFF byte. Whatever they
// hold, matching must not trap or hang, and:
// - what `--update` records for an output matches that output (escapes included),
// - the merged recording (wildcards kept) matches the output too,
// - the diff is empty exactly when the two match,
// - an escaped line reads back as exactly itself.

@_cdecl("LLVMFuzzerTestOneInput")
public func outputMatcherFuzzTestOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let buffer = UnsafeBufferPointer(start: data, count: size)
    let split = buffer.firstIndex(of: 0xFF) ?? size
    let expected = String(decoding: buffer[0..<split], as: UTF8.self)
    let actual = String(decoding: buffer[min(size, split + 1)..<size], as: UTF8.self)

    let matcher = OutputMatcher(expected: expected, actual: actual)
    precondition(matcher.matches == matcher.unifiedDiff().isEmpty, "a diff must exist exactly when the outputs differ")
    precondition(OutputMatcher(expected: matcher.merged, actual: actual).matches,
                 "the merged recording must match the output:\n\(matcher.merged.debugDescription)\n\(actual.debugDescription)")
    let recorded = OutputMatcher(expected: "", actual: actual).merged
    precondition(OutputMatcher(expected: recorded, actual: actual).matches, "a fresh recording must match its output")
    for line in OutputMatcher.lines(actual) {
        let parts = OutputEscapes.pattern(OutputEscapes.escape(line))
        precondition(parts.count == 1 && parts[0] == Array(line.unicodeScalars), "escaping must read back: \(line.debugDescription)")
    }
    _ = OutputMatcher.briefDiff(expected: expected, actual: actual)
    return 0
}
