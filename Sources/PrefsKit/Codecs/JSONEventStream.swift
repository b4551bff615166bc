/// Reads a JSON document whose bytes come in pieces as a sequence of events (an object or
/// array opens or closes, a member's name, a scalar), holding only the token it is at: for
/// documents whose nesting matters and whose size may be anything (a browser's bookmark
/// file). Strings, numbers and literals are read by the same strict parser as a whole
/// document, and nesting is limited to the same depth, so that the stream takes exactly the
/// documents that the whole reading takes; anything else makes ``next()`` give nil before
/// the document's end, and the caller reads it whole, where the problem is named. (The
/// whole reading's budget of values and bytes is not charged: the stream's memory does not
/// grow with them.)
package struct JSONEventStream: PieceReader {
    /// What the document holds next.
    package enum Event: Equatable {
        case objectStart
        case objectEnd
        case arrayStart
        case arrayEnd
        /// A member's name; its value's events follow.
        case key(String)
        case scalar(JSONValue)
    }

    private enum State {
        case value, firstValue, key, firstKey, afterValue, done
    }

    let next: () throws -> [UInt8]?
    var buffer: [UInt8] = []
    var position = 0
    var isAtEnd = false
    private var state = State.value
    /// Whether each open container is an object.
    private var open: [Bool] = []
    /// Whether the document was read to its end, every event given.
    package private(set) var isComplete = false

    /// `next` gives the next piece of the document, nil at its end.
    package init(next: @escaping () throws -> [UInt8]?) {
        self.next = next
    }

    /// How many objects and arrays are open.
    package var depth: Int { open.count }

    /// The next event; nil at the document's end (then ``isComplete`` is true) or at
    /// anything the whole reading would refuse.
    package mutating func nextEvent() throws -> Event? {
        discardConsumed()
        try skipWhitespace()
        switch state {
        case .done:
            return nil
        case .firstKey:
            if try take(UInt8(ascii: "}")) { return close(object: true) }
            return try key()
        case .key:
            return try key()
        case .firstValue:
            if try take(UInt8(ascii: "]")) { return close(object: false) }
            return try value()
        case .value:
            return try value()
        case .afterValue:
            guard let isObject = open.last else {
                // The top-level value ended: only white space may follow.
                state = .done
                isComplete = try peek() == nil
                return nil
            }
            if try take(UInt8(ascii: ",")) {
                state = isObject ? .key : .value
                return try nextEvent()
            }
            if try take(UInt8(ascii: isObject ? "}" : "]")) { return close(object: isObject) }
            return stop()
        }
    }

    /// Reads the value that starts here whole (its first event already taken when
    /// `first` is given): for the few small values a reader keeps. Nil when the document
    /// is not as it should be.
    package mutating func value(startingWith first: Event) throws -> JSONValue? {
        switch first {
        case .scalar(let value): return value
        case .objectStart:
            var members: [(key: String, value: JSONValue)] = []
            while let event = try nextEvent() {
                switch event {
                case .objectEnd: return .object(members)
                case .key(let key):
                    guard let start = try nextEvent(), let value = try value(startingWith: start)
                    else { return nil }
                    members.append((key, value))
                default: return nil
                }
            }
            return nil
        case .arrayStart:
            var elements: [JSONValue] = []
            while let event = try nextEvent() {
                if event == .arrayEnd { return .array(elements) }
                guard let value = try value(startingWith: event) else { return nil }
                elements.append(value)
            }
            return nil
        case .objectEnd, .arrayEnd, .key: return nil
        }
    }

    /// Passes over the value whose first event was `first`; false when the document is not
    /// as it should be.
    package mutating func skip(startingWith first: Event) throws -> Bool {
        switch first {
        case .scalar: return true
        case .objectStart, .arrayStart:
            let depth = open.count
            while try nextEvent() != nil {
                if open.count < depth { return true }
            }
            return false
        case .objectEnd, .arrayEnd, .key: return false
        }
    }

    private mutating func key() throws -> Event? {
        guard try peek() == UInt8(ascii: "\""), let end = try endOfString(from: position),
            let name = string(position..<end)
        else { return stop() }
        position = end
        try skipWhitespace()
        guard try take(UInt8(ascii: ":")) else { return stop() }
        state = .value
        return .key(name)
    }

    private mutating func value() throws -> Event? {
        guard let byte = try peek() else { return stop() }
        switch byte {
        case UInt8(ascii: "{"), UInt8(ascii: "["):
            guard open.count < DecodingBudget.maximumDepth else { return stop() }
            position += 1
            let isObject = byte == UInt8(ascii: "{")
            open.append(isObject)
            state = isObject ? .firstKey : .firstValue
            return isObject ? .objectStart : .arrayStart
        case UInt8(ascii: "\""):
            guard let end = try endOfString(from: position) else { return stop() }
            return scalar(through: end)
        default:
            return scalar(through: try endOfBareValue(from: position))
        }
    }

    private mutating func scalar(through end: Int) -> Event? {
        let value: JSONValue
        if buffer[position] == UInt8(ascii: "\"") {
            guard let text = string(position..<end) else { return stop() }
            value = .string(text)
        } else {
            guard end > position,
                let parsed = try? JSONValue(parsing: Array(buffer[position..<end]))
            else { return stop() }
            value = parsed
        }
        position = end
        state = .afterValue
        return .scalar(value)
    }

    /// The string whose quotes are at the range's ends; nil when the whole reading would
    /// refuse it. Most strings have no escape: those are valid UTF-8 without control
    /// characters, which is what the parser checks, and are taken as they are.
    private func string(_ range: Range<Int>) -> String? {
        let inside = buffer[(range.lowerBound + 1)..<(range.upperBound - 1)]
        if !inside.contains(where: { $0 < 0x20 || $0 == UInt8(ascii: "\\") }) {
            return String(validating: inside, as: UTF8.self)
        }
        guard case .string(let text)? = try? JSONValue(parsing: Array(buffer[range])) else {
            return nil
        }
        return text
    }

    private mutating func close(object: Bool) -> Event {
        open.removeLast()
        state = .afterValue
        return object ? .objectEnd : .arrayEnd
    }

    private mutating func stop() -> Event? {
        state = .done
        return nil
    }
}
