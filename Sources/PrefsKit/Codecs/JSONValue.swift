extension Prefs {
    /// A JSON document, kept as written: numbers keep their literal text and objects keep
    /// their key order.
    ///
    /// The parser follows RFC 8259 strictly (no comments, no trailing commas) and limits
    /// nesting to 512 levels so hostile input cannot exhaust the stack.
    public enum JSONValue: Sendable, Hashable {
        /// `null`.
        case null
        /// `true` or `false`.
        case bool(Bool)
        /// A number, as its literal text (so `2.0` stays a double and `2` an integer).
        case number(String)
        /// A string, unescaped.
        case string(String)
        /// An array, in order.
        case array([JSONValue])
        /// Members in document order.
        case object([(key: String, value: JSONValue)])

        /// Whether two values are equal; numbers compare by value (`1` equals `1.0`).
        public static func == (lhs: JSONValue, rhs: JSONValue) -> Bool {
            switch (lhs, rhs) {
            case (.null, .null): true
            case (.bool(let a), .bool(let b)): a == b
            case (.number(let a), .number(let b)): a == b
            case (.string(let a), .string(let b)): a == b
            case (.array(let a), .array(let b)): a == b
            case (.object(let a), .object(let b)):
                a.count == b.count
                    && zip(a, b).allSatisfy { $0.key == $1.key && $0.value == $1.value }
            default: false
            }
        }

        /// Hashes the value consistently with ``==(_:_:)``.
        public func hash(into hasher: inout Hasher) {
            switch self {
            case .null: hasher.combine(0)
            case .bool(let value): hasher.combine(value)
            case .number(let value): hasher.combine(value)
            case .string(let value): hasher.combine(value)
            case .array(let value): hasher.combine(value)
            case .object(let members):
                for member in members {
                    hasher.combine(member.key)
                    hasher.combine(member.value)
                }
            }
        }

        /// A number from an integer.
        public static func integer<T: BinaryInteger>(_ value: T) -> JSONValue {
            .number(String(value))
        }

        /// A number from a double; infinities have no JSON form and become null.
        public static func double(_ value: Double) -> JSONValue {
            guard value.isFinite else { return .null }
            var text = "\(value)"
            if !text.contains(".") && !text.contains("e") { text += ".0" }
            return .number(text)
        }

        /// The member of an object with this key.
        public subscript(key: String) -> JSONValue? {
            guard case .object(let members) = self else { return nil }
            return members.first { ExactName.sameBytes($0.key, key) }?.value
        }

        /// The string, when this is one.
        public var stringValue: String? {
            if case .string(let value) = self { return value }
            return nil
        }

        /// Whether the number literal has a fraction or exponent.
        var isFractionalNumber: Bool {
            guard case .number(let text) = self else { return false }
            return text.contains(where: { $0 == "." || $0 == "e" || $0 == "E" })
        }
    }
}

/// Within the package, by its short name: apps see it as ``Prefs/JSONValue`` only, so
/// that it cannot collide with a type of theirs.
package typealias JSONValue = Prefs.JSONValue

// MARK: - Parsing

extension JSONValue {
    /// Parses a JSON text.
    ///
    /// - Throws: ``InterchangeError`` naming where the text went wrong.
    public init(parsing text: String) throws(InterchangeError) {
        var parser = JSONParser(bytes: Array(text.utf8))
        self = try parser.parseDocument()
    }

    /// Parses JSON from UTF-8 bytes.
    ///
    /// - Throws: ``InterchangeError`` naming where the text went wrong.
    public init(parsing bytes: [UInt8]) throws(InterchangeError) {
        var parser = JSONParser(bytes: bytes)
        self = try parser.parseDocument()
    }
}

// MARK: - Writing

extension JSONValue {
    /// How JSON text is laid out.
    public enum Layout: Sendable {
        /// One line without spaces: `{"a":1,"b":[2,3]}`.
        case compact
        /// One line with a space after each comma and colon: `{"a": 1, "b": [2, 3]}`.
        case spaced
        /// Indented by two spaces, one member per line.
        case pretty
    }

    /// The JSON text in a layout.
    public func serialized(_ layout: Layout = .compact) -> String {
        var output = ""
        write(into: &output, layout: layout, indent: 0)
        return output
    }

    /// Appends the JSON text of an element of a pretty array, as ``serialized(_:)`` writes it
    /// inside the whole array: `isFirst` opens the array. An array written this way, element
    /// by element, then closed with ``closePrettyArray(into:isEmpty:)``, has the bytes of the
    /// whole array's, without the whole array in memory.
    /// `depth`: how deep the array is in its document (0: the document itself).
    package func appendPrettyArrayElement(
        into output: inout String, isFirst: Bool, depth: Int = 0
    ) {
        output += isFirst ? "[" : ","
        Self.newline(&output, indent: depth + 1)
        write(into: &output, layout: .pretty, indent: depth + 1)
    }

    /// Appends the value as ``serialized(_:)`` writes it pretty, nested `indent` levels deep:
    /// for writers that lay out the levels above themselves.
    package func appendPretty(into output: inout String, indent: Int) {
        write(into: &output, layout: .pretty, indent: indent)
    }

    /// Appends a string as JSON text writes it, quoted and escaped.
    package static func appendString(_ value: String, into output: inout String) {
        writeString(value, into: &output)
    }

    /// A pretty document, an object whose last member `arrayKey` is an array, written to
    /// `write` in pieces of about 64 KB as `elements` hands over the array's elements: the
    /// bytes of the whole document serialized at once, without the array in memory.
    package static func writePrettyDocument(
        _ members: [(String, JSONValue)], arrayKey: String,
        elements: ((JSONValue) throws -> Void) throws -> Void, to write: (String) throws -> Void
    ) throws {
        let opening = JSONValue.object(members + [(arrayKey, .null)]).serialized(.pretty)
        // The key's own marker: a string value's quotes are escaped, so no value makes it.
        guard let marker = opening.firstRange(of: "\"\(arrayKey)\": null") else { return }
        let placeholder = opening.index(marker.upperBound, offsetBy: -4)..<marker.upperBound
        try write(String(opening[..<placeholder.lowerBound]))
        var chunk = ""
        var isEmpty = true
        // The elements' closure writes; `elements` does not keep it.
        try withoutActuallyEscaping(write) { write in
            try elements { element in
                element.appendPrettyArrayElement(into: &chunk, isFirst: isEmpty, depth: 1)
                isEmpty = false
                if chunk.utf8.count >= 1 << 16 {
                    try write(chunk)
                    chunk = ""
                }
            }
        }
        closePrettyArray(into: &chunk, isEmpty: isEmpty, depth: 1)
        try write(chunk + String(opening[placeholder.upperBound...]) + "\n")
    }

    /// Closes a pretty array written by ``appendPrettyArrayElement(into:isFirst:depth:)``.
    package static func closePrettyArray(into output: inout String, isEmpty: Bool, depth: Int = 0) {
        if isEmpty {
            output += "[]"
        } else {
            newline(&output, indent: depth)
            output += "]"
        }
    }

    private func write(into output: inout String, layout: Layout, indent: Int) {
        let pretty = layout == .pretty
        let comma = layout == .compact ? "," : (pretty ? "," : ", ")
        let colon = layout == .compact ? ":" : ": "
        switch self {
        case .null: output += "null"
        case .bool(let value): output += value ? "true" : "false"
        case .number(let text): output += text
        case .string(let value): Self.writeString(value, into: &output)
        case .array(let elements):
            if elements.isEmpty {
                output += "[]"
                return
            }
            output += "["
            for (offset, element) in elements.enumerated() {
                if offset > 0 { output += comma }
                if pretty { Self.newline(&output, indent: indent + 1) }
                element.write(into: &output, layout: layout, indent: indent + 1)
            }
            if pretty { Self.newline(&output, indent: indent) }
            output += "]"
        case .object(let members):
            if members.isEmpty {
                output += "{}"
                return
            }
            output += "{"
            for (offset, member) in members.enumerated() {
                if offset > 0 { output += comma }
                if pretty { Self.newline(&output, indent: indent + 1) }
                Self.writeString(member.key, into: &output)
                output += colon
                member.value.write(into: &output, layout: layout, indent: indent + 1)
            }
            if pretty { Self.newline(&output, indent: indent) }
            output += "}"
        }
    }

    /// A newline and the indent of the first levels, made once.
    private static let indents = (0..<8).map { "\n" + String(repeating: "  ", count: $0) }

    private static func newline(_ output: inout String, indent: Int) {
        if indent < indents.count {
            output += indents[indent]
        } else {
            output += "\n" + String(repeating: "  ", count: indent)
        }
    }

    /// Whether a UTF-8 byte may need an escape: a control character, a quote, a backslash,
    /// DEL, or the lead byte of U+2028 and U+2029 (and of other characters, which the slow
    /// path then writes as they are).
    private static func mayNeedEscape(_ byte: UInt8) -> Bool {
        byte < 0x20 || byte == 0x22 || byte == 0x5C || byte == 0x7F || byte == 0xE2
    }

    private static func writeString(_ value: String, into output: inout String) {
        output += "\""
        // Most keys and values need no escape: written whole, not scalar by scalar.
        if !value.utf8.contains(where: mayNeedEscape) {
            output += value
            output += "\""
            return
        }
        for scalar in value.unicodeScalars {
            switch scalar {
            case "\"": output += "\\\""
            case "\\": output += "\\\\"
            case "\n": output += "\\n"
            case "\r": output += "\\r"
            case "\t": output += "\\t"
            case "\u{08}": output += "\\b"
            case "\u{0C}": output += "\\f"
            case "\u{2028}": output += "\\u2028"
            case "\u{2029}": output += "\\u2029"
            default:
                if scalar.value < 0x20 || scalar.value == 0x7F {
                    let hex = String(scalar.value, radix: 16)
                    output += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                } else {
                    output.unicodeScalars.append(scalar)
                }
            }
        }
        output += "\""
    }
}
