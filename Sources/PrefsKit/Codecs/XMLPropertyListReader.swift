#if canImport(FoundationEssentials) && !PREFS_FULL_FOUNDATION
    import FoundationEssentials
#else
    import Foundation
#endif

/// Reads XML property lists: the `plist` element and the element types of Apple's DTD,
/// with comments, processing instructions, the DOCTYPE, CDATA sections and character
/// references. Errors name the line.
struct XMLPropertyListReader: MarkupCursor {

    let bytes: [UInt8]
    var position = 0
    private var depth = 0
    /// The depth the document starts at: a piece of a larger one is read at the depth it
    /// has there, so that its nesting meets the same limit.
    private var baseDepth = 0
    private static let maximumDepth = DecodingBudget.maximumDepth
    private var budget = DecodingBudget()
    /// The entries of the top-level dictionary, every key kept (see ``decodeEntries(_:)``).
    private var topLevelEntries: [(key: String, value: PreferenceValue)]?

    static func decode(_ bytes: [UInt8]) throws(InterchangeError) -> PreferenceValue {
        var reader = XMLPropertyListReader(bytes: bytes)
        return try reader.parseDocument()
    }

    /// The entries of a document whose top level is a dictionary, in the file's order, with
    /// keys whose bytes differ kept apart even where Swift's `String ==` calls them equal;
    /// nil when the top level is not a dictionary.
    ///
    /// - Parameter depth: How deep in a larger document the top level is (0 for a whole
    ///   document): a dictionary taken out of another one nests as deep as it did there.
    static func decodeEntries(_ bytes: [UInt8], depth: Int = 0) throws(InterchangeError) -> [(
        key: String, value: PreferenceValue
    )]? {
        var reader = XMLPropertyListReader(bytes: bytes, depth: depth)
        _ = try reader.parseDocument()
        return reader.topLevelEntries
    }

    private init(bytes: [UInt8], depth: Int = 0) {
        self.bytes = bytes
        self.depth = depth
        baseDepth = depth
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { position = 3 }
    }

    private func error(_ reason: String) -> InterchangeError {
        InterchangeError(reason: reason, location: .line(line))
    }

    private mutating func parseDocument() throws(InterchangeError) -> PreferenceValue {
        try skipMisc()
        var tag = try readTag()
        var insidePlist = false
        if tag.name == "plist" {
            guard !tag.isClosing else { throw error("unexpected </plist>") }
            if tag.isEmpty { throw error("empty <plist/> holds no value") }
            insidePlist = true
            try skipMisc()
            tag = try readTag()
        }
        let value = try parseValue(startingWith: tag)
        try skipMisc()
        if insidePlist {
            let closing = try readTag()
            guard closing.isClosing, closing.name == "plist" else {
                throw error("expected </plist>, found <\(closing.name)>")
            }
            try skipMisc()
        }
        guard position == bytes.count else { throw error("unexpected content after the value") }
        return value
    }

    private struct Tag {
        var name: String
        var isClosing: Bool
        var isEmpty: Bool
    }

    /// Skips whitespace, comments, processing instructions and the DOCTYPE.
    private mutating func skipMisc() throws(InterchangeError) {
        while true {
            skipWhitespace()
            if hasPrefix("<?") {
                try skip(past: "?>")
            } else if hasPrefix("<!--") {
                try skip(past: "-->")
            } else if hasPrefix("<!DOCTYPE") {
                try skipDoctype()
            } else {
                return
            }
        }
    }

    private mutating func skipDoctype() throws(InterchangeError) {
        var bracketDepth = 0
        while position < bytes.count {
            let byte = bytes[position]
            position += 1
            if byte == UInt8(ascii: "[") { bracketDepth += 1 }
            if byte == UInt8(ascii: "]") { bracketDepth -= 1 }
            if byte == UInt8(ascii: ">") && bracketDepth <= 0 { return }
        }
        throw error("unterminated DOCTYPE")
    }

    private mutating func skip(past terminator: String) throws(InterchangeError) {
        guard advance(past: terminator) else {
            throw error("expected '\(terminator)' before the end of the file")
        }
    }

    private mutating func readTag() throws(InterchangeError) -> Tag {
        guard position < bytes.count, bytes[position] == UInt8(ascii: "<") else {
            throw error(position < bytes.count ? "expected an element" : "unexpected end of file")
        }
        position += 1
        let isClosing = skip(UInt8(ascii: "/"))
        let nameStart = position
        while position < bytes.count,
            ![0x20, 0x09, 0x0A, 0x0D, UInt8(ascii: ">"), UInt8(ascii: "/")].contains(
                bytes[position])
        {
            position += 1
        }
        let name = String(decoding: bytes[nameStart..<position], as: UTF8.self)
        guard !name.isEmpty else { throw error("element without a name") }
        // Attributes carry nothing we need (only plist's version); skip to the end of the tag.
        var quote: UInt8?
        while position < bytes.count {
            let byte = bytes[position]
            if let open = quote {
                if byte == open { quote = nil }
            } else if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "'") {
                quote = byte
            } else if byte == UInt8(ascii: ">") {
                let isEmpty = position > nameStart && bytes[position - 1] == UInt8(ascii: "/")
                position += 1
                return Tag(name: name, isClosing: isClosing, isEmpty: isEmpty && !isClosing)
            }
            position += 1
        }
        throw error("unterminated <\(name)> tag")
    }

    private mutating func parseValue(startingWith tag: Tag) throws(InterchangeError)
        -> PreferenceValue
    {
        guard !tag.isClosing else { throw error("unexpected </\(tag.name)>") }
        try spend(bytes: 0)
        switch tag.name {
        case "true", "false":
            if !tag.isEmpty { try expectClosing(tag.name, allowingText: true) }
            return .bool(tag.name == "true")
        case "string":
            return .string(tag.isEmpty ? "" : try readText(closing: "string"))
        case "integer":
            let text = try textContent(of: tag).trimmingWhitespace
            guard let value = Self.parseInteger(text) else {
                throw error("'\(text)' is not an integer")
            }
            return .int(value)
        case "real":
            let text = try textContent(of: tag).trimmingWhitespace
            guard let value = Self.parseReal(text) else { throw error("'\(text)' is not a real") }
            return .double(value)
        case "date":
            let text = try textContent(of: tag).trimmingWhitespace
            guard let date = ISO8601.date(from: text) else {
                throw error("'\(text)' is not a date")
            }
            return .date(date)
        case "data":
            let text = try textContent(of: tag).filter { !$0.isWhitespace }
            guard let data = Data(base64Encoded: text) else {
                throw error("<data> is not valid base64")
            }
            return .data(data)
        case "array":
            return .array(try parseArray(tag))
        case "dict":
            return .dictionary(try parseDictionary(tag))
        default:
            throw error("unknown element <\(tag.name)>")
        }
    }

    private mutating func textContent(of tag: Tag) throws(InterchangeError) -> String {
        tag.isEmpty ? "" : try readText(closing: tag.name)
    }

    private mutating func enterContainer() throws(InterchangeError) {
        depth += 1
        if depth > Self.maximumDepth { throw error("nesting deeper than \(Self.maximumDepth)") }
        try spend(bytes: 0)
    }

    private mutating func spend(bytes: Int) throws(InterchangeError) {
        do {
            try budget.spend(values: 1, bytes: bytes)
        } catch {
            throw self.error(error.reason)
        }
    }

    private mutating func parseArray(_ tag: Tag) throws(InterchangeError) -> [PreferenceValue] {
        if tag.isEmpty { return [] }
        try enterContainer()
        defer { depth -= 1 }
        var elements: [PreferenceValue] = []
        while true {
            try skipMisc()
            let next = try readTag()
            if next.isClosing {
                guard next.name == "array" else { throw error("expected </array>") }
                return elements
            }
            elements.append(try parseValue(startingWith: next))
        }
    }

    private mutating func parseDictionary(_ tag: Tag) throws(InterchangeError) -> [String:
        PreferenceValue]
    {
        if tag.isEmpty {
            // `<dict/>`, as an empty suite's export writes it, is a dictionary all the same.
            if depth == baseDepth { topLevelEntries = [] }
            return [:]
        }
        try enterContainer()
        defer { depth -= 1 }
        let isTopLevel = depth == baseDepth + 1
        var entries: [String: PreferenceValue] = [:]
        var ordered: [(key: String, value: PreferenceValue)] = []
        var names: Set<ExactName> = []
        while true {
            try skipMisc()
            let keyTag = try readTag()
            if keyTag.isClosing {
                guard keyTag.name == "dict" else { throw error("expected </dict>") }
                if isTopLevel { topLevelEntries = ordered }
                return entries
            }
            guard keyTag.name == "key" else {
                throw error("expected <key> in <dict>, found <\(keyTag.name)>")
            }
            let key = keyTag.isEmpty ? "" : try readText(closing: "key")
            try skipMisc()
            let valueTag = try readTag()
            guard !valueTag.isClosing else { throw error("<key>\(key)</key> has no value") }
            let value = try parseValue(startingWith: valueTag)
            guard names.insert(ExactName(key)).inserted else {
                throw error("the key '\(key)' appears twice in one <dict>")
            }
            if isTopLevel {
                // Kept whole in `ordered`; the dictionary keeps one of two spellings.
                ordered.append((key, value))
                entries[key] = value
            } else if entries.updateValue(value, forKey: key) != nil {
                // A nested dictionary is a Swift dictionary, which would keep one of them.
                throw error("the keys of a nested <dict> hold '\(key)' in two Unicode spellings")
            }
        }
    }

    private mutating func expectClosing(_ name: String, allowingText: Bool) throws(InterchangeError)
    {
        skipWhitespace()
        let tag = try readTag()
        guard tag.isClosing, tag.name == name else { throw error("expected </\(name)>") }
    }

    /// Reads character data up to `</name>`, resolving references and CDATA.
    private mutating func readText(closing name: String) throws(InterchangeError) -> String {
        var output: [UInt8] = []
        while position < bytes.count {
            let byte = bytes[position]
            if byte == UInt8(ascii: "<") {
                if hasPrefix("<![CDATA[") {
                    position += 9
                    let start = position
                    try skip(past: "]]>")
                    output.append(contentsOf: bytes[start..<position - 3])
                    continue
                }
                if hasPrefix("<!--") {
                    try skip(past: "-->")
                    continue
                }
                let tag = try readTag()
                guard tag.isClosing, tag.name == name else {
                    throw error("expected </\(name)>, found <\(tag.name)>")
                }
                guard let text = String(validating: output, as: UTF8.self) else {
                    throw error("<\(name)> is not valid UTF-8")
                }
                return text
            }
            if byte == UInt8(ascii: "&") {
                output.append(contentsOf: Array(try readReference().utf8))
                continue
            }
            output.append(byte)
            position += 1
        }
        throw error("unterminated <\(name)>")
    }

    private mutating func readReference() throws(InterchangeError) -> String {
        let start = position
        while position < bytes.count && bytes[position] != UInt8(ascii: ";") {
            position += 1
            if position - start > 12 { throw error("unterminated character reference") }
        }
        guard position < bytes.count else { throw error("unterminated character reference") }
        let name = String(decoding: bytes[start + 1..<position], as: UTF8.self)
        position += 1
        guard let text = CharacterReference.text(for: name) else {
            throw error("unknown reference '&\(name);'")
        }
        return text
    }

    static func parseInteger(_ text: String) -> Int? {
        if text.hasPrefix("0x") || text.hasPrefix("0X") { return Int(text.dropFirst(2), radix: 16) }
        if text.hasPrefix("+") { return Int(text.dropFirst()) }
        return Int(text)
    }

    static func parseReal(_ text: String) -> Double? {
        switch text.lowercased() {
        case "nan": return .nan
        case "inf", "+inf", "infinity", "+infinity": return .infinity
        case "-inf", "-infinity": return -.infinity
        default: return Double(text)
        }
    }
}

extension String {
    package var trimmingWhitespace: String {
        // Printable ASCII at both ends: nothing to trim, and no grapheme breaking to find out.
        let isPlain = { (byte: UInt8?) in byte.map { $0 > 0x20 && $0 < 0x7F } ?? false }
        if isPlain(utf8.first) && isPlain(utf8.last) { return self }
        var view = Substring(self)
        while view.first?.isWhitespace == true { view = view.dropFirst() }
        while view.last?.isWhitespace == true { view = view.dropLast() }
        return String(view)
    }
}
