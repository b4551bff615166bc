#if canImport(FoundationEssentials) && !PREFS_FULL_FOUNDATION
    import FoundationEssentials
#else
    import Foundation
#endif

extension Prefs {
    /// A typed preference: a name, a value type and the default read when nothing is stored.
    ///
    /// The default is never written. A stored number of another numeric type is bridged (see
    /// ``PreferenceStorable``); any other stored value of another type reads as the default.
    public final class Key<Value: Sendable>: Keys, @unchecked Sendable {
        // First, in the order a read uses them: a class's fields are laid out as declared,
        // and a read of a key among 100,000 should touch one cache line of it, not three.
        @usableFromInline let cacheKey: PreferenceCacheKey
        @usableFromInline let cacheSlot: PreferenceCacheSlot
        @usableFromInline let decode: @Sendable (PreferenceValue) -> Value?
        /// The key's name in the store.
        public let name: String
        /// The value read when the key is absent (and no default is registered).
        public let defaultValue: Value
        /// The type values are stored with.
        public let type: PreferenceType
        /// What the key is for, stored when the key is declared.
        public let summary: String?
        /// Names the key was stored under before, newest first. The first time a store reads
        /// the key, a value stored under one of them moves to the key's name (once, in one
        /// transaction, recorded in the history), unless the key already has a value.
        public let previousNames: [String]
        /// The version of the value's shape, stored beside every value the key writes; nil for
        /// a key whose shape never changed (see ``init(_:default:summary:previousNames:version:migrate:)``).
        public let version: Int?
        @usableFromInline let encode: @Sendable (Value) -> PreferenceValue?

        @usableFromInline
        init(
            name: String, defaultValue: Value, type: PreferenceType, summary: String?,
            previousNames: [String] = [], version: Int? = nil,
            upgrade: (@Sendable (PreferenceValue, Int) -> PreferenceValue?)? = nil,
            decode: @escaping @Sendable (PreferenceValue) -> Value?,
            encode: @escaping @Sendable (Value) -> PreferenceValue?
        ) {
            self.name = name
            self.cacheKey = PreferenceCacheKey(name)
            self.defaultValue = defaultValue
            self.type = type
            self.summary = summary
            self.decode = decode
            self.encode = encode
            self.previousNames = previousNames
            self.version = version
            self.cacheSlot = PreferenceCacheSlot(
                defaultValue: encode(defaultValue), previousNames: previousNames, version: version,
                upgrade: upgrade)
        }

        /// Creates a key of a `Codable` type whose shape changed: each value it writes is
        /// stored with `version`, and a value stored with an older version (or with none,
        /// counted as 0: written before the key had versions, or by an untyped write) is
        /// upgraded through `migrate` the first time a store reads it after it was written,
        /// once, in one transaction that the history records.
        ///
        /// A stored value is never lost to a read: one that `migrate` cannot read (it throws),
        /// or one of a newer version than `version` (written by a newer app), stays stored as
        /// it is, readable with `storedValue(forKey:)` and `prefs get --raw`, and the key
        /// reads its default, or the stored value when it decodes. A read-only store does not
        /// upgrade.
        ///
        /// ```swift
        /// static let layout = Prefs.Key("layout", default: Layout(), version: 2) { json, version in
        ///     let old = try JSONDecoder().decode(LayoutV1.self, from: json)
        ///     return Layout(columns: old.columnCount, density: .regular)
        /// }
        /// ```
        ///
        /// - Parameters:
        ///   - name: The key's name in the store.
        ///   - defaultValue: The value read when nothing is stored.
        ///   - summary: What the key is for.
        ///   - previousNames: Names the key was stored under before (see ``previousNames``).
        ///   - version: The version of the current shape, 1 or more.
        ///   - migrate: Reads the stored JSON of an older version (the second argument) into
        ///     the current type; throws when it cannot.
        public convenience init(
            _ name: String, default defaultValue: Value, summary: String? = nil,
            previousNames: [String] = [], version: Int,
            migrate: @escaping @Sendable (_ json: Data, _ storedVersion: Int) throws -> Value
        ) where Value: JSONPreference {
            self.init(
                name: name, defaultValue: defaultValue, type: .json, summary: summary,
                previousNames: previousNames, version: max(1, version),
                upgrade: { stored, storedVersion in
                    let text: String
                    switch stored {
                    case .json(let value), .string(let value): text = value
                    default: return nil
                    }
                    return (try? migrate(Data(text.utf8), storedVersion))?.preferenceValue
                },
                decode: { Value(preferenceValue: $0) }, encode: { $0.preferenceValue })
        }

        /// Creates a key of a storable type.
        ///
        /// - Parameters:
        ///   - name: The key's name in the store.
        ///   - defaultValue: The value read when nothing is stored.
        ///   - summary: What the key is for.
        ///   - previousNames: Names the key was stored under before (see ``previousNames``).
        @inlinable
        public convenience init(
            _ name: String, default defaultValue: Value, summary: String? = nil,
            previousNames: [String] = []
        )
        where Value: PreferenceStorable {
            self.init(
                name: name, defaultValue: defaultValue, type: Value.preferenceType,
                summary: summary, previousNames: previousNames,
                decode: { Value(preferenceValue: $0) }, encode: { $0.preferenceValue })
        }

        /// Creates a key of an enum whose raw value is a String, as `@AppStorage` allows.
        @inlinable
        public convenience init(
            _ name: String, default defaultValue: Value, summary: String? = nil,
            previousNames: [String] = []
        )
        where Value: RawRepresentable, Value.RawValue == String {
            self.init(
                name: name, defaultValue: defaultValue, type: .string, summary: summary,
                previousNames: previousNames,
                decode: { String(preferenceValue: $0).flatMap(Value.init(rawValue:)) },
                encode: { .string($0.rawValue) })
        }

        /// Creates a key of an enum whose raw value is an Int, as `@AppStorage` allows.
        @inlinable
        public convenience init(
            _ name: String, default defaultValue: Value, summary: String? = nil,
            previousNames: [String] = []
        )
        where Value: RawRepresentable, Value.RawValue == Int {
            self.init(
                name: name, defaultValue: defaultValue, type: .int, summary: summary,
                previousNames: previousNames,
                decode: { Int(preferenceValue: $0).flatMap(Value.init(rawValue:)) },
                encode: { .int($0.rawValue) })
        }

        /// Creates an optional key of a String enum: nil when nothing is stored, and storing
        /// nil removes the key.
        @inlinable
        public convenience init<Wrapped: RawRepresentable & Sendable>(
            _ name: String, default defaultValue: Value, summary: String? = nil,
            previousNames: [String] = []
        ) where Value == Wrapped?, Wrapped.RawValue == String {
            self.init(
                name: name, defaultValue: defaultValue, type: .string, summary: summary,
                previousNames: previousNames,
                decode: { String(preferenceValue: $0).flatMap(Wrapped.init(rawValue:)) },
                encode: { $0.map { .string($0.rawValue) } })
        }

        /// Creates an optional key of an Int enum: nil when nothing is stored.
        @inlinable
        public convenience init<Wrapped: RawRepresentable & Sendable>(
            _ name: String, default defaultValue: Value, summary: String? = nil,
            previousNames: [String] = []
        ) where Value == Wrapped?, Wrapped.RawValue == Int {
            self.init(
                name: name, defaultValue: defaultValue, type: .int, summary: summary,
                previousNames: previousNames,
                decode: { Int(preferenceValue: $0).flatMap(Wrapped.init(rawValue:)) },
                encode: { $0.map { .int($0.rawValue) } })
        }

        /// Creates a key of a String enum that also declares `PreferenceStorable`.
        @inlinable
        public convenience init(
            _ name: String, default defaultValue: Value, summary: String? = nil,
            previousNames: [String] = []
        )
        where Value: PreferenceStorable & RawRepresentable, Value.RawValue == String {
            self.init(
                name: name, defaultValue: defaultValue, type: .string, summary: summary,
                previousNames: previousNames,
                decode: { Value(preferenceValue: $0) }, encode: { $0.preferenceValue })
        }

        /// Creates a key of an Int enum that also declares `PreferenceStorable`.
        @inlinable
        public convenience init(
            _ name: String, default defaultValue: Value, summary: String? = nil,
            previousNames: [String] = []
        )
        where Value: PreferenceStorable & RawRepresentable, Value.RawValue == Int {
            self.init(
                name: name, defaultValue: defaultValue, type: .int, summary: summary,
                previousNames: previousNames,
                decode: { Value(preferenceValue: $0) }, encode: { $0.preferenceValue })
        }

        /// The declaration of this key, for `PreferenceStore.declare`.
        public var declaration: PreferenceDeclaration {
            PreferenceDeclaration(
                key: name, type: type, defaultValue: encode(defaultValue), description: summary)
        }
    }
}
