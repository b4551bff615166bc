import PrefsKit

#if canImport(FoundationEssentials) && !PREFS_FULL_FOUNDATION
    import FoundationEssentials
#else
    import Foundation
#endif

/// How values are typed in and printed by the command line.
enum ValueText {
    /// The type `set` infers for a new, undeclared key: true/false is a bool, an integer an
    /// int, a decimal a double, anything else a string. Text that would not come back the same
    /// through the number (leading zeros as in a ZIP code, a sign `+`, spaces, exponents,
    /// trailing zeros after the point, integers out of range) stays a string.
    static func inferredType(of text: String) -> PreferenceType {
        if text == "true" || text == "false" { return .bool }
        if let integer = Int(text), String(integer) == text { return .int }
        if isPlainDecimal(text), let value = Double(text), value.isFinite { return .double }
        return .string
    }

    /// `-?(0|[1-9][0-9]*)\.[0-9]*[1-9]`: a decimal written the one way it reads back.
    private static func isPlainDecimal(_ text: String) -> Bool {
        var bytes = Substring(text).utf8[...]
        if bytes.first == UInt8(ascii: "-") { bytes = bytes.dropFirst() }
        guard let point = bytes.firstIndex(of: UInt8(ascii: ".")) else { return false }
        let whole = bytes[..<point]
        let fraction = bytes[bytes.index(after: point)...]
        let isDigit = { (byte: UInt8) in byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }
        guard !whole.isEmpty, whole.allSatisfy(isDigit),
            whole.count == 1 || whole.first != UInt8(ascii: "0"),
            !fraction.isEmpty, fraction.allSatisfy(isDigit), fraction.last != UInt8(ascii: "0")
        else { return false }
        return true
    }

    private static func isDecimal(_ text: String) -> Bool {
        guard let parsed = try? JSONValue(parsing: text), case .number = parsed else {
            return false
        }
        return !text.contains(where: \.isWhitespace)
    }

    /// Parses the text of a value of a type.
    ///
    /// - Throws: ``CommandFailure`` (exit 65) naming what was expected.
    static func parse(_ text: String, as type: PreferenceType, key: String) throws(CommandFailure)
        -> PreferenceValue
    {
        func invalid(_ expected: String) -> CommandFailure {
            CommandFailure(
                "'\(shown(text))' is not a valid \(type) for '\(key)' (expected \(expected))",
                exitCode: CommandFailure.dataError)
        }
        switch type {
        case .bool:
            switch text.lowercased() {
            case "true", "yes", "1": return .bool(true)
            case "false", "no", "0": return .bool(false)
            default: throw invalid("true or false; yes, no, 1 and 0 are read too")
            }
        case .int:
            guard let value = Int(text) else {
                throw invalid("an integer from \(Int.min) to \(Int.max)")
            }
            return .int(value)
        case .double:
            if let special = nonFinite(text) { return .double(special) }
            guard let value = Double(text), value.isFinite, isDecimal(text) || Int(text) != nil
            else { throw invalid("a number such as 0.5, or nan, inf, -inf") }
            return .double(value)
        case .float:
            if let special = nonFinite(text) { return .float(Float(special)) }
            guard let value = Float(text), value.isFinite, isDecimal(text) || Int(text) != nil
            else { throw invalid("a number within Float's range such as 0.5, or nan, inf, -inf") }
            return .float(value)
        case .string:
            return .string(text)
        case .url:
            guard let url = URL(string: text), url.scheme != nil else {
                throw invalid("an absolute URL such as https://example.com")
            }
            return .url(url)
        case .date:
            if text == "now" { return .date(Date()) }
            // A day alone (2026-01-31) is its first instant in UTC.
            let isDay = text.utf8.count == 10 && !text.contains("T")
            guard let date = ISO8601.date(from: isDay ? text + "T00:00:00Z" : text) else {
                throw invalid(
                    "an ISO 8601 date such as 2026-01-31T12:00:00Z or 2026-01-31 (midnight UTC),"
                        + " or now")
            }
            return .date(date)
        case .data:
            guard let data = Data(base64Encoded: text) else { throw invalid("base64 text") }
            return .data(data)
        case .json:
            guard let json = try? JSONValue(parsing: text) else { throw invalid("JSON") }
            return .json(json.serialized())
        case .array, .dictionary:
            guard let json = try? JSONValue(parsing: text),
                let value = try? PreferenceValue(nestedJSON: json, key: key), value.type == type
            else { throw invalid(type == .array ? "a JSON array" : "a JSON object") }
            return value
        }
    }

    /// NaN and the infinities as the CLI spells them (any case; `infinity` too).
    private static func nonFinite(_ text: String) -> Double? {
        switch text.lowercased() {
        case "nan": .nan
        case "inf", "+inf", "infinity", "+infinity": .infinity
        case "-inf", "-infinity": -.infinity
        default: nil
        }
    }

    /// The plain text of a value: what `prefs get` prints.
    static func plain(_ value: PreferenceValue) -> String {
        switch value {
        case .bool(let flag): flag ? "true" : "false"
        case .int(let integer): String(integer)
        case .double(let real): plain(real)
        case .float(let real): real.isFinite ? "\(real)" : plain(Double(real))
        case .string(let text): text
        case .url(let url): url.absoluteString
        case .date(let date): ISO8601.string(from: date)
        case .data(let data): data.base64EncodedString()
        case .array, .dictionary, .json: value.jsonValue.serialized(.spaced)
        }
    }

    private static func plain(_ real: Double) -> String {
        if real.isNaN { return "nan" }
        return real.isFinite ? "\(real)" : (real < 0 ? "-inf" : "inf")
    }

    /// Text shown inside a message: control characters escaped, long text cut.
    static func shown(_ text: String) -> String { MessageText.shown(text) }

    /// Data in human output on a line of its own (a listing): whole, with what a terminal
    /// would act on escaped (``MessageText/escaped(_:)``). `-z`, `--json` and `get` on a
    /// pipe keep the exact bytes instead.
    static func listed(_ text: String) -> String { MessageText.escaped(text) }

    /// A value's plain text, escaped for a listing.
    static func listed(_ value: PreferenceValue) -> String { MessageText.escaped(plain(value)) }
}

extension PreferenceType {
    /// The type's name with its article, as a sentence says it: "an int", "a double".
    var withArticle: String { [.int, .array].contains(self) ? "an \(self)" : "a \(self)" }
}
