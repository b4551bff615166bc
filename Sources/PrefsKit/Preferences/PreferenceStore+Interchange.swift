#if canImport(FoundationEssentials) && !PREFS_FULL_FOUNDATION
    import FoundationEssentials
#else
    import Foundation
#endif

extension PreferenceStore {
    /// The name in the `format` field of the JSON export.
    public static let exportFormatName = "prefs-preferences"

    /// The stored values of the suite as JSON that ``importJSON(_:replacing:progress:)`` reads back
    /// exactly, types included:
    /// `{"format": "prefs-preferences", "version": 1, "suite": "standard",
    ///   "preferences": [{"key": ..., "type": ..., "value": ...}]}`.
    ///
    /// Every stored key is there, in byte order, also keys that Swift's `String ==` calls
    /// equal (`"é"` and `"e\u{301}"`), each with its own value.
    ///
    /// - Throws: ``DatabaseError`` when the read fails.
    public func exportJSON() throws -> String {
        var text = ""
        try exportJSON { text += $0 }
        return text
    }

    /// The same JSON as ``exportJSON()``, handed to `write` piece by piece as the values are
    /// read, so that a suite of any size is exported in constant memory. The database stays
    /// locked for this process until it returns.
    ///
    /// - Throws: `write`'s error, or ``DatabaseError`` when the read fails.
    public func exportJSON(to write: (String) throws -> Void) throws {
        try JSONValue.writePrettyDocument(
            [
                ("format", .string(Self.exportFormatName)), ("version", .integer(1)),
                ("suite", .string(suite)),
            ], arrayKey: "preferences",
            elements: { element in
                try forEachStoredEntry { key, value in
                    try element(
                        .object([
                            ("key", .string(key)), ("type", .string(value.type.rawValue)),
                            ("value", value.jsonValue),
                        ]))
                }
            }, to: write)
    }

    /// The stored values of the suite as a property list dictionary, as
    /// `defaults export` writes it, every stored key in byte order.
    ///
    /// - Throws: ``DatabaseError`` when the read fails.
    public func exportPropertyList(format: Prefs.PropertyList.Format) throws -> Data {
        var bytes: [UInt8] = []
        try exportPropertyList(format: format) { bytes += $0 }
        return Data(bytes)
    }

    /// The same property list as ``exportPropertyList(format:)``, handed to `write` piece by
    /// piece as the values are read, so that a suite of any size is exported in constant
    /// memory. Every read sees one snapshot of the database (the binary format reads the
    /// values more than once), which stays locked for this process until it returns.
    ///
    /// - Throws: `write`'s error, or ``DatabaseError`` when the read fails.
    public func exportPropertyList(
        format: Prefs.PropertyList.Format, to write: ([UInt8]) throws -> Void
    ) throws {
        var handedOn = false
        try database.read(retrying: !handedOn) { state in
            try state.engine.snapshotRead {
                try PropertyList.encode(
                    entries: { visit in
                        if !state.isEmpty {
                            try state.preferences.forEachEntry(suite: suite, visit)
                        }
                    }, format: format,
                    to: { bytes in
                        handedOn = true
                        try write(bytes)
                    })
            }
        }
    }

    /// Imports values from JSON in one transaction: all of them, or on any error none.
    ///
    /// Reads the export format, or a plain object of keys to values (types inferred).
    /// - Parameters:
    ///   - text: The JSON text.
    ///   - replacing: Remove the suite's other values first.
    ///   - progress: Called with (done, total) as the import goes.
    /// - Returns: How many values were imported.
    /// - Throws: ``PreferenceError/malformedImport(_:)`` naming the place, a type mismatch
    ///   with a declaration, or ``DatabaseError``.
    @discardableResult
    public func importJSON(
        _ text: String, replacing: Bool = false, progress: ImportProgress? = nil
    ) throws -> Int {
        try importValues(PreferenceImport(json: text), replacing: replacing, progress: progress)
    }

    /// Imports a property list dictionary (XML or binary) in one transaction.
    ///
    /// - Parameters:
    ///   - data: The property list.
    ///   - replacing: Remove the suite's other values first.
    ///   - progress: Called with (done, total) as the import goes.
    /// - Returns: How many values were imported.
    /// - Throws: ``PreferenceError/malformedImport(_:)``, a type mismatch with a
    ///   declaration, or ``DatabaseError``.
    @discardableResult
    public func importPropertyList(
        _ data: Data, replacing: Bool = false, progress: ImportProgress? = nil
    ) throws -> Int {
        try importValues(
            PreferenceImport(propertyList: data), replacing: replacing, progress: progress)
    }

    /// Writes values read from a file (``PreferenceImport``) in one transaction: all of
    /// them, or on any error none.
    ///
    /// - Parameters:
    ///   - document: The values, read and checked.
    ///   - replacing: Remove the suite's other values first.
    ///   - progress: Called with (done, total) as the import goes.
    /// - Returns: How many values were imported.
    /// - Throws: ``PreferenceError/typeMismatch(key:declared:given:)`` against a
    ///   declaration, or ``DatabaseError``.
    @discardableResult
    public func importValues(
        _ document: PreferenceImport, replacing: Bool = false, progress: ImportProgress? = nil
    ) throws -> Int {
        if let suiteProblem { throw suiteProblem }
        let values = document.entries
        var declared: [ExactName: PreferenceType] = [:]
        for declaration in try declarations() {
            declared[ExactName(declaration.key)] = declaration.type
        }
        for (key, value) in values {
            if let type = declared[ExactName(key)], type != value.type {
                throw PreferenceError.typeMismatch(key: key, declared: type, given: value.type)
            }
        }
        return try database.write { state in
            if replacing { try state.preferences.removeAll(suite: suite) }
            let now = Date()
            let step = max(1, values.count / 100)
            for (index, (key, value)) in values.enumerated() {
                if index % step == 0 { progress?(index, values.count) }
                try state.preferences.setValue(value, suite: suite, key: key, version: nil, at: now)
            }
            progress?(values.count, values.count)
            return values.count
        }
    }

    static func values(fromJSON document: JSONValue) throws
        -> [(key: String, value: PreferenceValue)]
    {
        guard case .object(let members) = document else {
            throw PreferenceError.malformedImport("the JSON document is not an object")
        }
        guard let entries = document["preferences"] else {
            return try members.map { member in
                (member.key, try PreferenceValue(nestedJSON: member.value, key: member.key))
            }
        }
        guard case .array(let list) = entries else {
            throw PreferenceError.malformedImport("'preferences' is not an array")
        }
        return try list.enumerated().map { try exportEntry($1, index: $0) }
    }

    /// One element of the export's `preferences` array.
    private static func exportEntry(_ entry: JSONValue, index: Int) throws
        -> (key: String, value: PreferenceValue)
    {
        guard let key = entry["key"]?.stringValue,
            let typeName = entry["type"]?.stringValue, let json = entry["value"]
        else {
            throw PreferenceError.malformedImport(
                "preferences[\(index)] needs string 'key' and 'type' and a 'value'")
        }
        guard let type = PreferenceType(rawValue: typeName) else {
            throw PreferenceError.malformedImport(
                "preferences[\(index)]: unknown type '\(typeName)'")
        }
        do {
            return (key, try PreferenceValue(json: json, type: type, key: key))
        } catch {
            throw PreferenceError.malformedImport("preferences[\(index)]: \(error)")
        }
    }

    // MARK: - Imports read piece by piece

    /// How many entries a large import file holds, read piece by piece and checked as
    /// ``PreferenceImport`` checks them; nil when it is to be read whole: it is not what
    /// `prefs export` writes (a JSON export, or a property list whose top level is a
    /// dictionary), its keys are not in rising byte order (as the export writes them; a key
    /// given twice is then the same as the one before it), or something in it is wrong (read
    /// whole, the problem is named).
    package static func countStreamable(_ file: StreamedImport) throws -> Int? {
        var count = 0
        guard try walk(file, { _, _ in count += 1 }) else { return nil }
        return count
    }

    /// Imports a large file in one transaction, all of it or nothing, read piece by piece:
    /// in memory that does not grow with it. For a file that ``countStreamable(_:)`` counted
    /// `count` entries in.
    ///
    /// - Throws: ``PreferenceError/malformedImport(_:)`` when it no longer reads so (it
    ///   changed since), a type mismatch with a declaration, or ``DatabaseError``; nothing is
    ///   imported then.
    package func importStreamed(
        _ file: StreamedImport, count: Int, replacing: Bool = false,
        progress: ImportProgress? = nil
    ) throws -> Int {
        if let suiteProblem { throw suiteProblem }
        var declared: [ExactName: PreferenceType] = [:]
        for declaration in try declarations() {
            declared[ExactName(declaration.key)] = declaration.type
        }
        return try database.write { state in
            if replacing { try state.preferences.removeAll(suite: suite) }
            let now = Date()
            let step = max(1, count / 100)
            var done = 0
            let isWhole = try Self.walk(file) { key, value in
                if let type = declared[ExactName(key)], type != value.type {
                    throw PreferenceError.typeMismatch(key: key, declared: type, given: value.type)
                }
                if done % step == 0 { progress?(done, count) }
                try state.preferences.setValue(value, suite: suite, key: key, version: nil, at: now)
                done += 1
            }
            guard isWhole, done == count else {
                throw PreferenceError.malformedImport("the file changed while it was imported")
            }
            progress?(count, count)
            return count
        }
    }

    /// Walks a file's entries, each checked, in rising byte order of their keys; false at
    /// the first thing that is not so.
    private static func walk(
        _ file: StreamedImport, _ body: (String, PreferenceValue) throws -> Void
    ) throws -> Bool {
        var previous: [UInt8]?
        let take = { (key: String, value: PreferenceValue) throws -> Bool in
            guard (try? validate(key: key)) != nil,
                (try? value.validateForStorage(key: key)) != nil
            else { return false }
            let keyBytes = Array(key.utf8)
            if let previous, !previous.lexicographicallyPrecedes(keyBytes) { return false }
            previous = keyBytes
            try body(key, value)
            return true
        }
        switch file {
        case .jsonExport(let pieces):
            return try walkExport(pieces, take)
        case .xmlPropertyList(let pieces):
            var stream = XMLPropertyListEntryStream(next: pieces)
            return try stream.walk(take)
        case .binaryPropertyList(let size, let read):
            return try BinaryPropertyListReader.walkEntries(
                PropertyListFile(size: size, read: read), take)
        }
    }

    /// Walks a JSON export's entries; false at the first thing that is not one.
    private static func walkExport(
        _ pieces: @escaping () throws -> [UInt8]?,
        _ take: (String, PreferenceValue) throws -> Bool
    ) throws -> Bool {
        var stream = JSONMemberStream(next: pieces)
        var index = 0
        return try stream.walk(
            arrayKey: "preferences",
            member: { _, bytes in JSONMemberStream.isValidValue(bytes) },
            element: { bytes in
                guard String(validating: bytes, as: UTF8.self) != nil,
                    let json = try? JSONValue(parsing: Array(bytes)),
                    let (key, value) = try? exportEntry(json, index: index)
                else { return false }
                index += 1
                return try take(key, value)
            })
    }
}

/// A large import file, read piece by piece (``PreferenceStore/countStreamable(_:)``).
package enum StreamedImport {
    /// A JSON export, whose bytes `pieces` gives from its start, then nil.
    case jsonExport(_ pieces: () throws -> [UInt8]?)
    /// An XML property list, whose bytes `pieces` gives from its start, then nil.
    case xmlPropertyList(_ pieces: () throws -> [UInt8]?)
    /// A binary property list of `size` bytes, which `read` gives from any offset.
    case binaryPropertyList(size: Int, read: (_ offset: Int, _ count: Int) throws -> [UInt8])
}

/// A stored value that a property list cannot keep as it is: its key, its type and what it
/// becomes there.
public struct PropertyListLoss: Sendable, Hashable {
    /// The key.
    public var key: String
    /// The stored type.
    public var type: PreferenceType
    /// What the property list holds instead, such as "a string".
    public var becomes: String
}

extension PreferenceStore {
    /// The stored values of the suite that a property-list export would change: property
    /// lists have no float (it becomes a double), no URL and no JSON type (they become
    /// strings), so `export` to a property list and `import` back reads them as other types.
    /// The XML form also keeps dates to the whole second only, and no text with control
    /// characters other than tab, line feed and carriage return. The JSON export keeps every
    /// type and value.
    ///
    /// - Parameter format: The property list's form (XML by default, the stricter one).
    /// - Throws: ``DatabaseError`` when the read fails.
    public func propertyListLosses(format: Prefs.PropertyList.Format = .xml) throws
        -> [PropertyListLoss]
    {
        var losses: [PropertyListLoss] = []
        try forEachStoredEntry { key, value in
            let loss =
                XMLPropertyListWriter.canCarry(key) || format == .binary
                ? value.propertyListLoss(format: format) : "a key that XML cannot carry"
            if let loss {
                losses.append(PropertyListLoss(key: key, type: value.type, becomes: loss))
            }
        }
        return losses
    }
}

extension PreferenceValue {
    /// What a property list of the format makes of the value when it cannot keep it as it
    /// is; nil when it can.
    func propertyListLoss(format: PropertyList.Format) -> String? {
        let isXML = format == .xml
        switch self {
        case .float: return "a double"
        case .url, .json: return "a string"
        case .string(let text) where isXML && !XMLPropertyListWriter.canCarry(text):
            return "a string without the control characters XML cannot carry"
        case .date(let date) where isXML && !XMLPropertyListWriter.isWholeSecond(date):
            return "a date without its fraction of a second"
        case .array(let elements):
            return elements.contains { $0.propertyListLoss(format: format) != nil }
                ? "an array whose floats, URLs, JSON\(isXML ? ", dates or text" : "") change"
                : nil
        case .dictionary(let values):
            let changes =
                values.values.contains { $0.propertyListLoss(format: format) != nil }
                || (isXML && values.keys.contains { !XMLPropertyListWriter.canCarry($0) })
            return changes
                ? "a dictionary whose floats, URLs, JSON\(isXML ? ", dates or text" : "") change"
                : nil
        case .bool, .int, .double, .string, .date, .data: return nil
        }
    }
}
