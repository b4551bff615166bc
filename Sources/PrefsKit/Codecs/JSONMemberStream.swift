/// Reads a JSON document whose top level is an object from bytes that come in pieces,
/// holding one value at a time: each member's value is handed over as its own bytes, and
/// the elements of one member's array one by one (an import of any size in constant
/// memory).
///
/// It checks the document's outline only (braces, brackets, colons, commas, where strings
/// end); each value handed over is parsed by whoever takes it. Anything it does not expect
/// makes ``walk(arrayKey:member:element:)`` return false: the caller then reads the
/// document whole, whose parser names the problem with its line and column.
struct JSONMemberStream: PieceReader {
    let next: () throws -> [UInt8]?
    var buffer: [UInt8] = []
    var position = 0
    var isAtEnd = false

    /// `next` gives the next piece of the document, nil at its end.
    init(next: @escaping () throws -> [UInt8]?) {
        self.next = next
    }

    /// Walks the document: `member` with each member's name and value but `arrayKey`'s,
    /// `element` with each element of `arrayKey`'s array (which must be there once). Either
    /// returns false to stop; so does the walk, also for an outline it does not expect, and
    /// at a member named in `refusing` before its value is read (a member that makes the
    /// document another format, whose value may be the whole file).
    mutating func walk(
        arrayKey: String, refusing: [String] = [],
        member: (String, ArraySlice<UInt8>) throws -> Bool,
        element: (ArraySlice<UInt8>) throws -> Bool
    ) throws -> Bool {
        try skipWhitespace()
        guard try take(UInt8(ascii: "{")) else { return false }
        var sawArray = false
        var isFirst = true
        while true {
            try skipWhitespace()
            if isFirst, try take(UInt8(ascii: "}")) { break }
            isFirst = false
            guard try peek() == UInt8(ascii: "\""), let keyRange = try valueExtent(),
                String(validating: buffer[keyRange], as: UTF8.self) != nil,
                case .string(let key)? = try? JSONValue(parsing: Array(buffer[keyRange]))
            else { return false }
            if refusing.contains(where: { ExactName.sameBytes($0, key) }) { return false }
            position = keyRange.upperBound
            try skipWhitespace()
            guard try take(UInt8(ascii: ":")) else { return false }
            try skipWhitespace()
            if key == arrayKey {
                guard !sawArray, try take(UInt8(ascii: "[")) else { return false }
                sawArray = true
                guard try walkArray(element) else { return false }
            } else {
                guard let range = try valueExtent(), try member(key, buffer[range]) else {
                    return false
                }
                position = range.upperBound
            }
            try skipWhitespace()
            if try take(UInt8(ascii: ",")) { continue }
            guard try take(UInt8(ascii: "}")) else { return false }
            break
        }
        try skipWhitespace()
        let isAtEndOfDocument = try peek() == nil
        return sawArray && isAtEndOfDocument
    }

    /// Whether a member's value handed over is one the whole reading takes: valid UTF-8 that
    /// parses as JSON.
    static func isValidValue(_ bytes: ArraySlice<UInt8>) -> Bool {
        String(validating: bytes, as: UTF8.self) != nil
            && (try? JSONValue(parsing: Array(bytes))) != nil
    }

    private mutating func walkArray(_ element: (ArraySlice<UInt8>) throws -> Bool) throws -> Bool {
        try skipWhitespace()
        if try take(UInt8(ascii: "]")) { return true }
        while true {
            try skipWhitespace()
            guard let range = try valueExtent(), try element(buffer[range]) else { return false }
            position = range.upperBound
            discardConsumed()
            try skipWhitespace()
            if try take(UInt8(ascii: ",")) { continue }
            return try take(UInt8(ascii: "]"))
        }
    }

    /// The bytes of the value that starts here: a string to its closing quote, an object or
    /// array to its closing bracket, anything else to the next comma, bracket or space.
    /// Nil when the document ends first.
    private mutating func valueExtent() throws -> Range<Int>? {
        guard let first = try peek() else { return nil }
        var index = position
        switch first {
        case UInt8(ascii: "\""):
            guard let end = try endOfString(from: index) else { return nil }
            return position..<end
        case UInt8(ascii: "{"), UInt8(ascii: "["):
            var depth = 0
            while try load(through: index) {
                switch buffer[index] {
                case UInt8(ascii: "\""):
                    guard let end = try endOfString(from: index) else { return nil }
                    index = end
                    continue
                case UInt8(ascii: "{"), UInt8(ascii: "["):
                    depth += 1
                case UInt8(ascii: "}"), UInt8(ascii: "]"):
                    depth -= 1
                    if depth == 0 { return position..<(index + 1) }
                default:
                    break
                }
                index += 1
            }
            return nil
        default:
            let end = try endOfBareValue(from: position)
            return end > position ? position..<end : nil
        }
    }
}
