import FoundationEssentials
import PrefsKit

/// The JSON documents of `--json` output; field names are fixed (see the README).
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
