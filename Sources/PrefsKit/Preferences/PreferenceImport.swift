#if canImport(FoundationEssentials) && !PREFS_FULL_FOUNDATION
    import FoundationEssentials
#else
    import Foundation
#endif

/// Preferences read from an import file and checked, ready for
/// ``PreferenceStore/importValues(_:replacing:progress:)``.
///
/// Reading is separate from writing, so that a file that does not parse, holds a key the
/// rules refuse, or exceeds a decoding limit changes nothing: not even the database's
/// creation. Keys are kept as bytes: `"é"` and `"e\u{301}"` are two entries.
///
/// ```swift
/// let document = try PreferenceImport(json: text)
/// try store.importValues(document)
/// ```
public struct PreferenceImport: Sendable {
    /// The keys and values, in the file's order.
    public let entries: [(key: String, value: PreferenceValue)]

    /// Reads the JSON export format, or a plain object of keys to values (types inferred).
    ///
    /// - Throws: ``PreferenceError/malformedImport(_:)`` naming the place, or
    ///   ``PreferenceError/invalidKey(_:reason:)``.
    public init(json text: String) throws(PreferenceError) {
        let document: JSONValue
        do {
            document = try JSONValue(parsing: text)
        } catch {
            throw .malformedImport("invalid JSON: \(error)")
        }
        let entries: [(key: String, value: PreferenceValue)]
        do {
            entries = try PreferenceStore.values(fromJSON: document)
        } catch let error as PreferenceError {
            throw error
        } catch {
            throw .malformedImport("\(error)")
        }
        try self.init(checking: entries)
    }

    /// Reads a property list (XML or binary) whose top level is a dictionary.
    ///
    /// - Throws: ``PreferenceError/malformedImport(_:)`` naming the place, or
    ///   ``PreferenceError/invalidKey(_:reason:)``.
    public init(propertyList data: Data) throws(PreferenceError) {
        let entries: [(key: String, value: PreferenceValue)]?
        do {
            entries = try PropertyList.decodeEntries(data)
        } catch {
            throw .malformedImport(error.description)
        }
        guard let entries else {
            throw .malformedImport("the property list is not a dictionary")
        }
        try self.init(checking: entries)
    }

    private init(checking entries: [(key: String, value: PreferenceValue)]) throws(PreferenceError)
    {
        var names: Set<ExactName> = []
        for (key, value) in entries {
            try PreferenceStore.validate(key: key)
            try value.validateForStorage(key: key)
            guard names.insert(ExactName(key)).inserted else {
                throw .malformedImport("the key '\(MessageText.shown(key))' appears twice")
            }
        }
        self.entries = entries
    }
}
