import PrefsKit

#if canImport(FoundationEssentials) && !PREFS_FULL_FOUNDATION
    import FoundationEssentials
#else
    import Foundation
#endif

/// The JSON documents of `--json` output; field names are fixed (docs/cli.md, "JSON shapes").
enum JSONShapes {
    static func preference(suite: String, key: String, value: PreferenceValue, isDefault: Bool)
        -> JSONValue
    {
        .object([
            ("suite", .string(suite)), ("key", .string(key)),
            ("type", .string(value.type.rawValue)), ("value", value.jsonValue),
            ("isDefault", .bool(isDefault)),
        ])
    }

    /// `get --raw --json`: the stored value, its type and the version of its shape.
    static func rawPreference(suite: String, key: String, value: PreferenceValue, version: Int?)
        -> JSONValue
    {
        let text: JSONValue
        if case .json(let stored) = value { text = .string(stored) } else { text = .null }
        return .object([
            ("suite", .string(suite)), ("key", .string(key)),
            ("type", .string(value.type.rawValue)), ("value", value.jsonValue),
            ("storedText", text), ("version", version.map { .integer($0) } ?? .null),
        ])
    }

    static func description(
        suite: String, key: String, declaration: PreferenceDeclaration?, stored: PreferenceValue?,
        lastChange: PreferenceChange?
    ) -> JSONValue {
        .object([
            ("suite", .string(suite)), ("key", .string(key)),
            (
                "declared",
                declaration.map { declaration in
                    .object([
                        ("type", .string(declaration.type.rawValue)),
                        ("default", declaration.defaultValue?.jsonValue ?? .null),
                        ("description", declaration.description.map(JSONValue.string) ?? .null),
                        ("deviceLocal", .bool(declaration.isDeviceLocal)),
                    ])
                } ?? .null
            ),
            (
                "stored",
                stored.map {
                    .object([("type", .string($0.type.rawValue)), ("value", $0.jsonValue)])
                } ?? .null
            ),
            ("lastChange", lastChange.map(change) ?? .null),
        ])
    }

    static func change(_ change: PreferenceChange) -> JSONValue {
        let type = (change.value ?? change.oldValue)?.type.rawValue
        return .object([
            ("suite", .string(change.suite)), ("key", .string(change.key)),
            ("type", type.map(JSONValue.string) ?? .null),
            ("value", change.value?.jsonValue ?? .null),
            ("oldValue", change.oldValue?.jsonValue ?? .null),
            ("changedAt", .string(ISO8601.string(from: change.changedAt))),
        ])
    }
}
