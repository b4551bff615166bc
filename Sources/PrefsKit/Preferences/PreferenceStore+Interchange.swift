import FoundationEssentials

extension PreferenceStore {
    /// The name in the `format` field of the JSON export.
    public static let exportFormatName = "prefs-preferences"

    /// The stored values of the suite as JSON that ``importJSON(_:replacing:progress:)`` reads back
    /// exactly, types included:
    /// `{"format": "prefs-preferences", "version": 1, "suite": "standard",
    ///   "preferences": [{"key": ..., "type": ..., "value": ...}]}`.
    ///
    /// - Throws: ``DatabaseError`` when the read fails.
    public func exportJSON() throws -> String {
        let values = try storedValues()
        let entries: [JSONValue] = values.keys.sorted().compactMap { key in
            guard let value = values[key] else { return nil }
            return .object([
                ("key", .string(key)), ("type", .string(value.type.rawValue)),
                ("value", value.jsonValue),
            ])
        }
        let document = JSONValue.object([
            ("format", .string(Self.exportFormatName)), ("version", .integer(1)),
            ("suite", .string(suite)), ("preferences", .array(entries)),
        ])
        return document.serialized(.pretty) + "\n"
    }

    /// The stored values of the suite as a property list dictionary, as
    /// `defaults export` writes it.
    ///
    /// - Throws: ``DatabaseError`` when the read fails.
    public func exportPropertyList(format: PropertyList.Format) throws -> Data {
        PropertyList.encode(.dictionary(try storedValues()), format: format)
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
        let document: JSONValue
        do {
            document = try JSONValue(parsing: text)
        } catch {
            throw PreferenceError.malformedImport("invalid JSON: \(error)")
        }
        return try importValues(
            try Self.values(fromJSON: document), replacing: replacing, progress: progress)
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
        let root: PreferenceValue
        do {
            root = try PropertyList.decode(data)
        } catch {
            throw PreferenceError.malformedImport(error.description)
        }
        guard case .dictionary(let entries) = root else {
            throw PreferenceError.malformedImport("the property list is not a dictionary")
        }
        return try importValues(
            entries.keys.sorted().compactMap { key in
                entries[key].map { (key, $0) }
            }, replacing: replacing, progress: progress)
    }

    private func importValues(
        _ values: [(key: String, value: PreferenceValue)], replacing: Bool,
        progress: ImportProgress?
    ) throws -> Int {
        if let suiteProblem { throw suiteProblem }
        let declared = Dictionary(
            (try declarations()).map { ($0.key, $0.type) }, uniquingKeysWith: { $1 })
        for (key, value) in values {
            try Self.validate(key: key)
            try value.validateForStorage(key: key)
            if let type = declared[key], type != value.type {
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

    private static func values(fromJSON document: JSONValue) throws
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
        var result: [(key: String, value: PreferenceValue)] = []
        for (index, entry) in list.enumerated() {
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
                result.append((key, try PreferenceValue(json: json, type: type, key: key)))
            } catch {
                throw PreferenceError.malformedImport("preferences[\(index)]: \(error)")
            }
        }
        return result
    }
}
