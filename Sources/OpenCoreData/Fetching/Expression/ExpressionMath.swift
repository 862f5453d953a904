import Foundation

/// Arithmetic and statistics over values of mixed numeric types. Integers stay integers
/// where the operation allows (sums, products, differences and quotients of integers:
/// `7 / 2` is 3, as in Foundation); anything with a
/// `Decimal` is computed in `Decimal`; the rest in `Double`.
enum ExpressionMath {
    static func int64(_ number: PredicateValues.Number) -> Int64 {
        switch number {
        case .int(let value): return value
        case .uint(let value): return Int64(truncatingIfNeeded: value)
        case .double(let value): return value.isFinite ? Int64(exactly: value.rounded(.towardZero)) ?? 0 : 0
        case .decimal(let value): return NSDecimalNumber(decimal: value).int64Value
        }
    }

    /// The sum of the numbers in `values` (non-numbers are skipped); `0` for none.
    static func sum(_ values: [Any]) -> Any {
        var total: PredicateValues.Number = .int(0)
        for value in values {
            guard let number = PredicateValues.number(value) else { continue }
            total = add(total, number)
        }
        return total.swiftValue
    }

    static func add(_ a: PredicateValues.Number, _ b: PredicateValues.Number) -> PredicateValues.Number {
        switch (a, b) {
        case let (.int(x), .int(y)):
            let (result, overflow) = x.addingReportingOverflow(y)
            return overflow ? .double(Double(x) + Double(y)) : .int(result)
        case (.decimal, _), (_, .decimal): return .decimal(a.decimalValue + b.decimalValue)
        default: return .double(a.doubleValue + b.doubleValue)
        }
    }

    /// The arithmetic mean as a `Double` (`Decimal` when any value is one); `nil` for none.
    static func average(_ values: [Any]) -> Any? {
        let numbers = values.compactMap(PredicateValues.number)
        guard !numbers.isEmpty else { return nil }
        if numbers.contains(where: { if case .decimal = $0 { return true } else { return false } }) {
            return numbers.reduce(Decimal(0)) { $0 + $1.decimalValue } / Decimal(numbers.count)
        }
        return numbers.reduce(0.0) { $0 + $1.doubleValue } / Double(numbers.count)
    }

    /// The smallest or largest value (in predicate order), `nil` for none.
    static func extreme(_ values: [Any], wantMaximum: Bool) -> Any? {
        var best: Any?
        for value in values where !isNilValue(value) {
            guard let current = best else {
                best = value
                continue
            }
            if let order = PredicateValues.order(value, current, options: []),
                order == (wantMaximum ? .orderedDescending : .orderedAscending)
            {
                best = value
            }
        }
        return best
    }

    static func median(_ values: [Any]) -> Any? {
        let numbers = values.compactMap(PredicateValues.number).sorted { PredicateValues.compare($0, $1) == .orderedAscending }
        guard !numbers.isEmpty else { return nil }
        let middle = numbers.count / 2
        if numbers.count % 2 == 1 { return numbers[middle].swiftValue }
        return (numbers[middle - 1].doubleValue + numbers[middle].doubleValue) / 2
    }

    /// The most frequent values, as an array (ties all listed, first occurrence order).
    static func mode(_ values: [Any]) -> Any? {
        var counts: [(value: Any, count: Int)] = []
        for value in values {
            if let index = counts.firstIndex(where: { PredicateValues.equal($0.value, value, options: []) }) {
                counts[index].count += 1
            } else {
                counts.append((value, 1))
            }
        }
        guard let top = counts.map(\.count).max() else { return [Any]() }
        return counts.filter { $0.count == top }.map(\.value)
    }

    /// The population standard deviation (`stddev:` of 1, 2, 3, 4, 4, 5, 9, 11 is 3.2186).
    static func standardDeviation(_ values: [Any]) -> Any? {
        let numbers = values.compactMap(PredicateValues.number).map(\.doubleValue)
        guard !numbers.isEmpty else { return nil }
        let mean = numbers.reduce(0, +) / Double(numbers.count)
        let variance = numbers.reduce(0) { $0 + ($1 - mean) * ($1 - mean) } / Double(numbers.count)
        return variance.squareRoot()
    }

    /// `add:to:`, `from:subtract:`, `multiply:by:`, `divide:by:`, `modulus:by:`,
    /// `raise:toPower:`. A date plus or minus a number of seconds is a date.
    static func arithmetic(_ name: String, _ left: Any?, _ right: Any?) -> Any? {
        guard let left = unwrapAny(left), let right = unwrapAny(right) else { return nil }
        if let date = PredicateValues.date(left), let seconds = PredicateValues.number(right) {
            switch name {
            case "add:to:": return date.addingTimeInterval(seconds.doubleValue)
            case "from:subtract:": return date.addingTimeInterval(-seconds.doubleValue)
            default: return nil
            }
        }
        if let date = PredicateValues.date(right), let seconds = PredicateValues.number(left), name == "add:to:" {
            return date.addingTimeInterval(seconds.doubleValue)
        }
        if let a = PredicateValues.date(left), let b = PredicateValues.date(right), name == "from:subtract:" {
            return a.timeIntervalSince(b)
        }
        guard let a = PredicateValues.number(left), let b = PredicateValues.number(right) else { return nil }
        if case .int(let x) = a, case .int(let y) = b {
            switch name {
            case "add:to:":
                let (result, overflow) = x.addingReportingOverflow(y)
                if !overflow { return Int(result) }
            case "from:subtract:":
                let (result, overflow) = x.subtractingReportingOverflow(y)
                if !overflow { return Int(result) }
            case "multiply:by:":
                let (result, overflow) = x.multipliedReportingOverflow(by: y)
                if !overflow { return Int(result) }
            case "divide:by:":
                // Integers divide as integers, as Foundation's do (`7 / 2` is 3).
                if y != 0, !(x == Int64.min && y == -1) { return Int(x / y) }
            case "modulus:by:":
                return y == 0 || (x == Int64.min && y == -1) ? nil : Int(x % y)
            default: break
            }
        }
        let decimal: Bool = {
            if case .decimal = a { return true }
            if case .decimal = b { return true }
            return false
        }()
        if decimal, name != "raise:toPower:", name != "modulus:by:" {
            let x = a.decimalValue, y = b.decimalValue
            switch name {
            case "add:to:": return x + y
            case "from:subtract:": return x - y
            case "multiply:by:": return x * y
            default: return y == 0 ? nil : x / y
            }
        }
        let x = a.doubleValue, y = b.doubleValue
        switch name {
        case "add:to:": return x + y
        case "from:subtract:": return x - y
        case "multiply:by:": return x * y
        case "divide:by:": return x / y
        case "modulus:by:": return fmod(x, y)
        default: return pow(x, y)
        }
    }
}
