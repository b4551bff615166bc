/// A strict RFC 8259 parser with the decoding budgets (depth, values, bytes, time), behind
/// `Prefs.JSONValue.parse(_:)`.
struct JSONParser {
    let bytes: [UInt8]
    var position = 0
    var depth = 0
    static let maximumDepth = DecodingBudget.maximumDepth
    var budget = DecodingBudget()

    init(bytes: [UInt8]) {
        self.bytes = bytes
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { position = 3 }
    }

    mutating func parseDocument() throws(InterchangeError) -> JSONValue {
        skipWhitespace()
        let value = try parseValue()
        skipWhitespace()
        guard position == bytes.count else { throw error("unexpected text after the JSON value") }
        return value
    }

    func error(_ reason: String) -> InterchangeError {
        let reason = position >= bytes.count ? "unexpected end of input" : reason
        var line = 1
        var column = 1
        for byte in bytes[..<min(position, bytes.count)] {
            if byte == UInt8(ascii: "\n") {
                line += 1
                column = 1
            } else if byte & 0xC0 != 0x80 {
                column += 1
            }
        }
        return InterchangeError(
            reason: reason, location: .lineAndColumn(line: line, column: column))
    }

    mutating func skipWhitespace() {
        while position < bytes.count {
            switch bytes[position] {
            case 0x20, 0x09, 0x0A, 0x0D: position += 1
            default: return
            }
        }
    }

    mutating func parseValue() throws(InterchangeError) -> JSONValue {
        guard position < bytes.count else { throw error("unexpected end of input") }
        do {
            try budget.spend()
        } catch {
            throw self.error(error.reason)
        }
        switch bytes[position] {
        case UInt8(ascii: "{"): return try parseObject()
        case UInt8(ascii: "["): return try parseArray()
        case UInt8(ascii: "\""): return .string(try parseString())
        case UInt8(ascii: "t"):
            try expectLiteral("true")
            return .bool(true)
        case UInt8(ascii: "f"):
            try expectLiteral("false")
            return .bool(false)
        case UInt8(ascii: "n"):
            try expectLiteral("null")
            return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try parseNumber()
        default: throw error("unexpected character")
        }
    }

    mutating func expectLiteral(_ literal: String) throws(InterchangeError) {
        let expected = Array(literal.utf8)
        guard bytes.count - position >= expected.count,
            Array(bytes[position..<position + expected.count]) == expected
        else { throw error("invalid literal, expected '\(literal)'") }
        position += expected.count
    }

    mutating func enterContainer() throws(InterchangeError) {
        depth += 1
        if depth > Self.maximumDepth { throw error("nesting deeper than \(Self.maximumDepth)") }
    }

    mutating func parseObject() throws(InterchangeError) -> JSONValue {
        try enterContainer()
        position += 1
        var members: [(key: String, value: JSONValue)] = []
        skipWhitespace()
        if position < bytes.count && bytes[position] == UInt8(ascii: "}") {
            position += 1
            depth -= 1
            return .object(members)
        }
        while true {
            skipWhitespace()
            guard position < bytes.count, bytes[position] == UInt8(ascii: "\"") else {
                throw error("expected a string key")
            }
            let key = try parseString()
            skipWhitespace()
            guard position < bytes.count, bytes[position] == UInt8(ascii: ":") else {
                throw error("expected ':' after an object key")
            }
            position += 1
            skipWhitespace()
            members.append((key, try parseValue()))
            skipWhitespace()
            guard position < bytes.count else { throw error("unexpected end of input") }
            if bytes[position] == UInt8(ascii: ",") {
                position += 1
                continue
            }
            guard bytes[position] == UInt8(ascii: "}") else { throw error("expected ',' or '}'") }
            position += 1
            depth -= 1
            return .object(members)
        }
    }

    mutating func parseArray() throws(InterchangeError) -> JSONValue {
        try enterContainer()
        position += 1
        var elements: [JSONValue] = []
        skipWhitespace()
        if position < bytes.count && bytes[position] == UInt8(ascii: "]") {
            position += 1
            depth -= 1
            return .array(elements)
        }
        while true {
            skipWhitespace()
            elements.append(try parseValue())
            skipWhitespace()
            guard position < bytes.count else { throw error("unexpected end of input") }
            if bytes[position] == UInt8(ascii: ",") {
                position += 1
                continue
            }
            guard bytes[position] == UInt8(ascii: "]") else { throw error("expected ',' or ']'") }
            position += 1
            depth -= 1
            return .array(elements)
        }
    }

    mutating func parseNumber() throws(InterchangeError) -> JSONValue {
        let start = position
        if bytes[position] == UInt8(ascii: "-") { position += 1 }
        guard position < bytes.count, isDigit(bytes[position]) else {
            throw error("invalid number")
        }
        if bytes[position] == UInt8(ascii: "0") {
            position += 1
        } else {
            while position < bytes.count && isDigit(bytes[position]) { position += 1 }
        }
        if position < bytes.count && bytes[position] == UInt8(ascii: ".") {
            position += 1
            guard position < bytes.count, isDigit(bytes[position]) else {
                throw error("invalid number: digits expected after '.'")
            }
            while position < bytes.count && isDigit(bytes[position]) { position += 1 }
        }
        if position < bytes.count && (bytes[position] | 0x20) == UInt8(ascii: "e") {
            position += 1
            if position < bytes.count
                && (bytes[position] == UInt8(ascii: "+") || bytes[position] == UInt8(ascii: "-"))
            {
                position += 1
            }
            guard position < bytes.count, isDigit(bytes[position]) else {
                throw error("invalid number: digits expected in the exponent")
            }
            while position < bytes.count && isDigit(bytes[position]) { position += 1 }
        }
        return .number(String(decoding: bytes[start..<position], as: UTF8.self))
    }

    func isDigit(_ byte: UInt8) -> Bool { byte >= 0x30 && byte <= 0x39 }

    mutating func parseString() throws(InterchangeError) -> String {
        position += 1
        var scalars = String.UnicodeScalarView()
        var runStart = position
        func flushRun(_ end: Int, into scalars: inout String.UnicodeScalarView) {
            if end > runStart {
                scalars.append(
                    contentsOf: String(decoding: bytes[runStart..<end], as: UTF8.self)
                        .unicodeScalars)
            }
        }
        while true {
            guard position < bytes.count else { throw error("unterminated string") }
            let byte = bytes[position]
            if byte == UInt8(ascii: "\"") {
                flushRun(position, into: &scalars)
                position += 1
                return String(scalars)
            }
            if byte < 0x20 { throw error("control character in a string") }
            if byte == UInt8(ascii: "\\") {
                flushRun(position, into: &scalars)
                position += 1
                scalars.append(try parseEscape())
                runStart = position
                continue
            }
            if byte >= 0x80 {
                try validateUTF8Sequence()
                continue
            }
            position += 1
        }
    }

    mutating func validateUTF8Sequence() throws(InterchangeError) {
        let lead = bytes[position]
        let length: Int
        switch lead {
        case 0xC2...0xDF: length = 2
        case 0xE0...0xEF: length = 3
        case 0xF0...0xF4: length = 4
        default: throw error("invalid UTF-8")
        }
        guard position + length <= bytes.count else { throw error("invalid UTF-8") }
        let sequence = bytes[position..<position + length]
        guard sequence.dropFirst().allSatisfy({ $0 & 0xC0 == 0x80 }),
            String(validating: sequence, as: UTF8.self) != nil
        else { throw error("invalid UTF-8") }
        position += length
    }

    mutating func parseEscape() throws(InterchangeError) -> Unicode.Scalar {
        guard position < bytes.count else { throw error("unterminated escape") }
        let byte = bytes[position]
        position += 1
        switch byte {
        case UInt8(ascii: "\""): return "\""
        case UInt8(ascii: "\\"): return "\\"
        case UInt8(ascii: "/"): return "/"
        case UInt8(ascii: "b"): return "\u{08}"
        case UInt8(ascii: "f"): return "\u{0C}"
        case UInt8(ascii: "n"): return "\n"
        case UInt8(ascii: "r"): return "\r"
        case UInt8(ascii: "t"): return "\t"
        case UInt8(ascii: "u"):
            let high = try parseHex4()
            if (0xD800...0xDBFF).contains(high) {
                guard bytes.count - position >= 6, bytes[position] == UInt8(ascii: "\\"),
                    bytes[position + 1] == UInt8(ascii: "u")
                else { throw error("unpaired surrogate in \\u escape") }
                position += 2
                let low = try parseHex4()
                guard (0xDC00...0xDFFF).contains(low) else {
                    throw error("unpaired surrogate in \\u escape")
                }
                let value = 0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00)
                guard let scalar = Unicode.Scalar(value) else { throw error("invalid escape") }
                return scalar
            }
            guard let scalar = Unicode.Scalar(high) else {
                throw error("unpaired surrogate in \\u escape")
            }
            return scalar
        default:
            throw error("invalid escape")
        }
    }

    mutating func parseHex4() throws(InterchangeError) -> UInt32 {
        guard bytes.count - position >= 4 else { throw error("invalid \\u escape") }
        var value: UInt32 = 0
        for _ in 0..<4 {
            let byte = bytes[position]
            let digit: UInt32
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = UInt32(byte - 0x30)
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = UInt32(byte - 0x61 + 10)
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = UInt32(byte - 0x41 + 10)
            default: throw error("invalid \\u escape")
            }
            value = value * 16 + digit
            position += 1
        }
        return value
    }
}
