/// `?, ?, …, ?`: the parameter list of an `IN (…)` or a `VALUES (…)`. Every statement the
/// library builds with a run of parameters takes its list from here.
enum SQLPlaceholders {
    /// `count` placeholders separated by `", "` (empty for 0), written byte by byte into a
    /// string made at its final size: appending `"?, "` piece by piece cost about 700
    /// instructions a time, joining an array of `"?"` more.
    static func list(_ count: Int) -> String {
        guard count > 0 else { return "" }
        let length = 3 * count - 2
        return String(unsafeUninitializedCapacity: length) { bytes in
            for start in stride(from: 0, to: length, by: 3) {
                bytes[start] = UInt8(ascii: "?")
                if start + 1 < length {
                    bytes[start + 1] = UInt8(ascii: ",")
                    bytes[start + 2] = UInt8(ascii: " ")
                }
            }
            return length
        }
    }
}
