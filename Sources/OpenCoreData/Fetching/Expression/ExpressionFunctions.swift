import Foundation

/// The built-in functions of `NSExpression(forFunction:arguments:)` and of format strings
/// (`sum:(…)`, `sqrt(…)`, `now()`, `a + b`), evaluated in memory.
enum ExpressionFunctions {
    /// Every function name Core Data's expressions support, with its argument count.
    static let arity: [String: Int] = [
        "sum:": 1, "count:": 1, "min:": 1, "max:": 1, "average:": 1, "median:": 1, "mode:": 1, "stddev:": 1,
        "add:to:": 2, "from:subtract:": 2, "multiply:by:": 2, "divide:by:": 2, "modulus:by:": 2,
        "sqrt:": 1, "log:": 1, "ln:": 1, "raise:toPower:": 2, "exp:": 1,
        "floor:": 1, "ceiling:": 1, "abs:": 1, "trunc:": 1,
        "uppercase:": 1, "lowercase:": 1, "canonical:": 1,
        "random": 0, "random:": 1, "randomn:": 1, "now": 0,
        "bitwiseAnd:with:": 2, "bitwiseOr:with:": 2, "bitwiseXor:with:": 2,
        "leftshift:by:": 2, "rightshift:by:": 2, "onesComplement:": 1, "noindex:": 1,
        // Produced by the parser for `CAST(x, "T")`, `a[i]` and `$x.key`.
        "castObject:toType:": 2, "objectFrom:withIndex:": 2,
    ]

    /// Names of the format string's function-call forms without the trailing colon
    /// (`sqrt(2)` is `sqrt:(2)`, `now()` is `now`).
    static func selectorName(forCall name: String, argumentCount: Int) -> String? {
        if arity[name] != nil { return name }
        let withColon = name + ":"
        if argumentCount > 0, arity[withColon] != nil { return withColon }
        if argumentCount == 0, arity[name] == 0 { return name }
        return nil
    }

    static func isKnown(_ name: String) -> Bool { arity[name] != nil }

    /// The infix operator a two-argument arithmetic function prints as.
    static let infixOperators: [String: String] = [
        "add:to:": "+", "from:subtract:": "-", "multiply:by:": "*", "divide:by:": "/", "raise:toPower:": "**",
    ]

    /// Calls the built-in function `name`.
    static func call(_ name: String, _ arguments: [Any?]) -> Any? {
        let values = arguments.map(unwrapAny)
        func argument(_ index: Int) -> Any? {
            index < values.count ? values[index] : nil
        }
        func numbers(_ index: Int) -> [Any] {
            guard let value = argument(index), !(value is NSNull) else { return [] }
            let elements = collectionElements(value) ?? [value]
            return elements.filter { !isNilValue($0) }
        }
        func number(_ index: Int) -> PredicateValues.Number? {
            argument(index).flatMap(PredicateValues.number)
        }
        func double(_ index: Int, _ body: (Double) -> Double) -> Any? {
            number(index).map { body($0.doubleValue) }
        }
        func integers(_ body: (Int64, Int64) -> Int64) -> Any? {
            guard let a = number(0), let b = number(1) else { return nil }
            return Int(truncatingIfNeeded: body(ExpressionMath.int64(a), ExpressionMath.int64(b)))
        }

        switch name {
        case "sum:": return ExpressionMath.sum(numbers(0))
        case "count:":
            guard let value = argument(0), !(value is NSNull) else { return 0 }
            return (collectionOrDictionaryElements(value) ?? [value]).count
        case "min:": return ExpressionMath.extreme(numbers(0), wantMaximum: false)
        case "max:": return ExpressionMath.extreme(numbers(0), wantMaximum: true)
        case "average:": return ExpressionMath.average(numbers(0))
        case "median:": return ExpressionMath.median(numbers(0))
        case "mode:": return ExpressionMath.mode(numbers(0))
        case "stddev:": return ExpressionMath.standardDeviation(numbers(0))
        case "add:to:", "from:subtract:", "multiply:by:", "divide:by:", "modulus:by:", "raise:toPower:":
            return ExpressionMath.arithmetic(name, argument(0), argument(1))
        case "sqrt:": return double(0) { $0.squareRoot() }
        case "log:": return double(0) { Foundation.log10($0) }
        case "ln:": return double(0) { Foundation.log($0) }
        case "exp:": return double(0) { Foundation.exp($0) }
        case "floor:": return double(0) { $0.rounded(.down) }
        case "ceiling:": return double(0) { $0.rounded(.up) }
        case "trunc:": return double(0) { $0.rounded(.towardZero) }
        case "abs:":
            guard let value = number(0) else { return nil }
            switch value {
            case .int(let int): return Int(truncatingIfNeeded: int.magnitude)
            case .uint: return value.swiftValue
            case .decimal(let decimal): return decimal < 0 ? -decimal : decimal
            case .double(let double): return Swift.abs(double)
            }
        case "uppercase:", "lowercase:", "canonical:":
            guard let function = Derivation.StringFunction(rawValue: name) else { return nil }
            return argument(0).flatMap(PredicateValues.string).map(function.apply)
        case "random": return Double.random(in: 0..<1)
        case "random:":
            let elements = numbers(0)
            return elements.randomElement()
        case "randomn:":
            guard let limit = number(0), ExpressionMath.int64(limit) > 0 else { return nil }
            return Int.random(in: 0..<Int(ExpressionMath.int64(limit)))
        case "now": return Date()
        case "bitwiseAnd:with:": return integers(&)
        case "bitwiseOr:with:": return integers(|)
        case "bitwiseXor:with:": return integers(^)
        case "leftshift:by:": return integers { $0 << $1 }
        case "rightshift:by:": return integers { $0 >> $1 }
        case "onesComplement:": return number(0).map { Int(truncatingIfNeeded: ~ExpressionMath.int64($0)) }
        case "noindex:": return argument(0)
        case "castObject:toType:": return cast(argument(0), to: argument(1).flatMap(PredicateValues.string) ?? "")
        case "objectFrom:withIndex:": return element(of: argument(0), at: argument(1))
        default: return nil
        }
    }

    /// `FUNCTION(receiver, 'selector', …)` and `$x.key`: the few methods that can be called
    /// without the Objective-C runtime.
    static func callMethod(_ name: String, on receiver: Any?, arguments: [Any?]) -> Any? {
        switch name {
        case "valueForKeyPath:", "valueForKey:":
            guard let path = arguments.first.flatMap({ $0 }).flatMap(PredicateValues.string) else { return nil }
            return keyPathValue(path, of: receiver)
        case "self", "copy": return receiver
        case "description": return unwrapAny(receiver).map { cocoaPlainDescription($0) }
        case "uppercaseString": return unwrapAny(receiver).flatMap(PredicateValues.string)?.uppercased()
        case "lowercaseString": return unwrapAny(receiver).flatMap(PredicateValues.string)?.lowercased()
        case "length": return unwrapAny(receiver).flatMap(PredicateValues.string)?.utf16.count
        case "count": return unwrapAny(receiver).flatMap(collectionOrDictionaryElements)?.count
        default:
            if let target = unwrapAny(receiver) as? ExpressionMethodTarget { return target.callExpressionMethod(name, arguments: arguments) }
            if isKnown(name) { return call(name, [receiver] + arguments) }
            fatalError("FUNCTION(…, '\(name)'): unrecognized selector; without the Objective-C runtime only valueForKeyPath:, valueForKey:, self, description, uppercaseString, lowercaseString, length, count and the built-in functions can be called")
        }
    }

    /// `CAST(value, "NSDate" | "NSNumber" | "NSString" | "NSDecimalNumber")`.
    static func cast(_ value: Any?, to type: String) -> Any? {
        guard let value = unwrapAny(value), !(value is NSNull) else { return nil }
        switch type {
        case "NSDate", "Date":
            if let date = PredicateValues.date(value) { return date }
            if let number = PredicateValues.number(value) { return Date(timeIntervalSinceReferenceDate: number.doubleValue) }
            if let text = PredicateValues.string(value), let seconds = Double(text) { return Date(timeIntervalSinceReferenceDate: seconds) }
            return nil
        case "NSNumber":
            if let date = PredicateValues.date(value) { return date.timeIntervalSinceReferenceDate }
            if let number = PredicateValues.number(value) { return number.swiftValue }
            if let text = PredicateValues.string(value) { return Int(text) ?? Double(text) }
            return nil
        case "NSDecimalNumber":
            if let number = PredicateValues.number(value) { return number.decimalValue }
            if let text = PredicateValues.string(value) { return Decimal(string: text) }
            return nil
        case "NSString", "String":
            if let text = PredicateValues.string(value) { return text }
            return cocoaPlainDescription(value)
        default:
            return value
        }
    }

    /// `collection[index]`, `[FIRST]`, `[LAST]`, `[SIZE]`, `dictionary[key]`.
    static func element(of collection: Any?, at index: Any?) -> Any? {
        guard let collection = unwrapAny(collection), !(collection is NSNull) else { return nil }
        if let symbol = index as? PredicateIndexSymbol {
            let elements = collectionOrDictionaryElements(collection) ?? []
            switch symbol {
            case .first: return elements.first
            case .last: return elements.last
            case .size: return elements.count
            }
        }
        if let key = index.flatMap(PredicateValues.string), collectionElements(collection) == nil {
            return singleKeyValue(key, of: collection)
        }
        guard let elements = collectionElements(collection), let position = index.flatMap(PredicateValues.number) else { return nil }
        let offset = ExpressionMath.int64(position)
        return offset >= 0 && offset < elements.count ? elements[Int(offset)] : nil
    }
}

/// `FIRST`, `LAST` and `SIZE` in `collection[…]`.
enum PredicateIndexSymbol: String, CustomStringConvertible {
    case first = "FIRST", last = "LAST", size = "SIZE"
    var description: String { rawValue }
}
