#if canImport(FoundationEssentials) && !PREFS_FULL_FOUNDATION
    import FoundationEssentials
#else
    import Foundation
#endif

// The conversions of Foundation's UserDefaults getters (NSUserDefaults.h): numbers and
// booleans convert among themselves, strings are read the way NSString's boolValue,
// integerValue and doubleValue read them, numbers convert to strings.
extension PreferenceValue {
    /// As `bool(forKey:)` reads it: numbers are true when non-zero; a string is true when
    /// it starts with Y, y, T, t or a non-zero digit ("YES", "true", "1"), after optional
    /// whitespace, sign and leading zeros.
    public var coercedBool: Bool? {
        switch self {
        case .bool(let value): return value
        case .int(let value): return value != 0
        case .double(let value): return value != 0 && !value.isNaN
        case .float(let value): return value != 0 && !value.isNaN
        case .string(let text): return Self.stringBoolValue(text)
        default: return nil
        }
    }

    /// As `integer(forKey:)` reads it: booleans are 0 or 1, doubles are truncated toward
    /// zero ("12.34" and 12.34 read as 12), strings are read from their leading digits.
    public var coercedInteger: Int? {
        switch self {
        case .bool(let value): return value ? 1 : 0
        case .int(let value): return value
        case .double(let value): return Self.truncatedInteger(value)
        case .float(let value): return Self.truncatedInteger(Double(value))
        case .string(let text): return Self.stringIntegerValue(text)
        default: return nil
        }
    }

    /// As `double(forKey:)` reads it: booleans are 0 or 1, strings are read from their
    /// leading number.
    public var coercedDouble: Double? {
        switch self {
        case .bool(let value): return value ? 1 : 0
        case .int(let value): return Double(value)
        case .double(let value): return value
        case .float(let value): return Double(value)
        case .string(let text): return Self.stringDoubleValue(text)
        default: return nil
        }
    }

    /// As `string(forKey:)` reads it: strings as they are, numbers as their decimal text
    /// (a boolean as "1" or "0", like NSNumber); nil for other types.
    public var coercedString: String? {
        switch self {
        case .string(let value): return value
        case .bool(let value): return value ? "1" : "0"
        case .int(let value): return String(value)
        case .double(let value): return Self.numberText(value)
        // Its own digits, as NSNumber of a float shows them: 12.34, not 12.34000015258789.
        case .float(let value):
            return value.isFinite && value != value.rounded()
                ? "\(value)" : Self.numberText(Double(value))
        default: return nil
        }
    }

    /// As `url(forKey:)` reads it: a URL as it is; a string as a file path (a leading `~`
    /// expands to the home folder).
    public var coercedURL: URL? {
        switch self {
        case .url(let value): return value
        case .string(let path):
            var expanded = path
            if path == "~" || path.hasPrefix("~/") {
                let home = DatabaseLocation.variable("HOME") ?? ""
                expanded = home + path.dropFirst()
            }
            return URL(filePath: expanded)
        default:
            return nil
        }
    }

    static func truncatedInteger(_ value: Double) -> Int {
        if value.isNaN { return 0 }
        if value >= Double(Int.max) { return Int.max }
        if value <= Double(Int.min) { return Int.min }
        return Int(value.rounded(.towardZero))
    }

    static func numberText(_ value: Double) -> String {
        if value == value.rounded(), abs(value) < 1e15 { return String(Int64(value)) }
        return "\(value)"
    }

    private static func skippingWhitespace(_ text: String) -> Substring.UTF8View {
        var view = Substring(text).utf8
        while let first = view.first, first == 0x20 || (0x09...0x0D).contains(first) {
            view = view.dropFirst()
        }
        return view
    }

    static func stringBoolValue(_ text: String) -> Bool {
        var view = skippingWhitespace(text)
        guard let first = view.first else { return false }
        if "YyTt".utf8.contains(first) { return true }
        if first == UInt8(ascii: "+") || first == UInt8(ascii: "-") { view = view.dropFirst() }
        while view.first == UInt8(ascii: "0") { view = view.dropFirst() }
        guard let digit = view.first else { return false }
        return digit >= UInt8(ascii: "1") && digit <= UInt8(ascii: "9")
    }

    static func stringIntegerValue(_ text: String) -> Int {
        var view = skippingWhitespace(text)
        var negative = false
        if let sign = view.first, sign == UInt8(ascii: "+") || sign == UInt8(ascii: "-") {
            negative = sign == UInt8(ascii: "-")
            view = view.dropFirst()
        }
        var value = 0
        for byte in view {
            guard byte >= 0x30 && byte <= 0x39 else { break }
            let digit = Int(byte - 0x30)
            let (times, overflow1) = value.multipliedReportingOverflow(by: 10)
            let (sum, overflow2) =
                negative
                ? times.subtractingReportingOverflow(digit) : times.addingReportingOverflow(digit)
            if overflow1 || overflow2 { return negative ? Int.min : Int.max }
            value = sum
        }
        return value
    }

    static func stringDoubleValue(_ text: String) -> Double {
        let view = skippingWhitespace(text)
        var bytes = Array(view)
        var end = 0
        func digits() -> Bool {
            let start = end
            while end < bytes.count && bytes[end] >= 0x30 && bytes[end] <= 0x39 { end += 1 }
            return end > start
        }
        if end < bytes.count && (bytes[end] == 0x2B || bytes[end] == 0x2D) { end += 1 }
        var hasDigits = digits()
        if end < bytes.count && bytes[end] == 0x2E {
            end += 1
            hasDigits = digits() || hasDigits
        }
        guard hasDigits else { return 0 }
        if end < bytes.count && (bytes[end] | 0x20) == UInt8(ascii: "e") {
            let mark = end
            end += 1
            if end < bytes.count && (bytes[end] == 0x2B || bytes[end] == 0x2D) { end += 1 }
            if !digits() { end = mark }
        }
        bytes.removeSubrange(end...)
        return Double(String(decoding: bytes, as: UTF8.self)) ?? 0
    }
}
