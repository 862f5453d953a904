/// Hands out `id` values for headings on one page, unique within that page.
struct AnchorNamer {
    private var used: Set<String> = []

    /// A lower-case, hyphenated id for `text`, numbered when the page already has it.
    mutating func anchor(for text: String) -> String {
        let base = AnchorNamer.slug(text)
        var candidate = base
        var number = 2
        while used.contains(candidate) {
            candidate = "\(base)-\(number)"
            number += 1
        }
        used.insert(candidate)
        return candidate
    }

    /// Keeps ASCII letters and digits, turns runs of anything else into one hyphen.
    static func slug(_ text: String) -> String {
        var result = ""
        var pendingHyphen = false
        for scalar in text.lowercased().unicodeScalars {
            if scalar.isASCII, scalar.properties.isAlphabetic || ("0"..."9").contains(scalar) {
                if pendingHyphen && !result.isEmpty { result += "-" }
                pendingHyphen = false
                result.unicodeScalars.append(scalar)
            } else {
                pendingHyphen = true
            }
        }
        return result.isEmpty ? "section" : result
    }
}
