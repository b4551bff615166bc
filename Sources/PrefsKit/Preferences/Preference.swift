/// A property backed by a preference, shaped like SwiftUI's `@AppStorage`.
///
/// ```swift
/// final class OnboardingModel {
///     @Preference("hasViewedWalkthrough") var hasViewedWalkthrough = false
/// }
/// ```
/// Without `store:`, the property reads and writes ``PreferenceStore/standard`` as it is at
/// each access.
/// Reading returns the stored value, else the default. Setting writes at once (one
/// commit); a setter cannot throw, so a failed write goes to the store's `errorHandler`
/// and the property keeps returning what the file holds. Inside an `@Observable` class,
/// mark it `@ObservationIgnored`, as `@AppStorage`: each read registers with Swift's
/// Observation for its key, so a view that read it refreshes when the key changes, in this
/// process or another. `$property.values` streams the changes.
@propertyWrapper
public struct Preference<Value: Sendable>: Sendable {
    /// The typed key.
    public let key: Prefs.Key<Value>
    /// The store given at creation; nil for the standard store at each access.
    private let explicitStore: PreferenceStore?

    /// The store the value lives in.
    public var store: PreferenceStore { explicitStore ?? .standard }

    /// Creates a property for a typed key.
    ///
    /// - Parameters:
    ///   - key: The typed key.
    ///   - store: The store; nil (the default) for ``PreferenceStore/standard``.
    public init(_ key: Prefs.Key<Value>, store: PreferenceStore? = nil) {
        self.key = key
        self.explicitStore = store
    }

    /// Creates a property from a name and a default, as `@AppStorage("name") var x = default`.
    public init(wrappedValue: Value, _ name: String, store: PreferenceStore? = nil)
    where Value: PreferenceStorable {
        self.init(Prefs.Key(name, default: wrappedValue), store: store)
    }

    /// Creates a property of a String-backed enum.
    public init(wrappedValue: Value, _ name: String, store: PreferenceStore? = nil)
    where Value: RawRepresentable, Value.RawValue == String {
        self.init(Prefs.Key(name, default: wrappedValue), store: store)
    }

    /// Creates a property of an Int-backed enum.
    public init(wrappedValue: Value, _ name: String, store: PreferenceStore? = nil)
    where Value: RawRepresentable, Value.RawValue == Int {
        self.init(Prefs.Key(name, default: wrappedValue), store: store)
    }

    /// Creates a property of a String enum that also declares `PreferenceStorable`.
    public init(wrappedValue: Value, _ name: String, store: PreferenceStore? = nil)
    where Value: PreferenceStorable & RawRepresentable, Value.RawValue == String {
        self.init(Prefs.Key(name, default: wrappedValue), store: store)
    }

    /// Creates a property of an Int enum that also declares `PreferenceStorable`.
    public init(wrappedValue: Value, _ name: String, store: PreferenceStore? = nil)
    where Value: PreferenceStorable & RawRepresentable, Value.RawValue == Int {
        self.init(Prefs.Key(name, default: wrappedValue), store: store)
    }

    /// Creates an optional property that is nil when nothing is stored.
    public init<Wrapped: PreferenceStorable>(_ name: String, store: PreferenceStore? = nil)
    where Value == Wrapped? {
        self.init(Prefs.Key(name, default: nil), store: store)
    }

    /// Creates an optional property of a String-backed enum, nil when nothing is stored, as
    /// `@AppStorage("theme") var theme: Theme?`.
    public init<Wrapped: RawRepresentable & Sendable>(_ name: String, store: PreferenceStore? = nil)
    where Value == Wrapped?, Wrapped.RawValue == String {
        self.init(Prefs.Key(name, default: nil), store: store)
    }

    /// Creates an optional property of an Int-backed enum, nil when nothing is stored.
    public init<Wrapped: RawRepresentable & Sendable>(_ name: String, store: PreferenceStore? = nil)
    where Value == Wrapped?, Wrapped.RawValue == Int {
        self.init(Prefs.Key(name, default: nil), store: store)
    }

    /// Creates an optional property of a String enum that also declares `PreferenceStorable`.
    public init<Wrapped: PreferenceStorable & RawRepresentable>(
        _ name: String, store: PreferenceStore? = nil
    ) where Value == Wrapped?, Wrapped.RawValue == String {
        self.init(Prefs.Key<Wrapped?>(name, default: nil), store: store)
    }

    /// Creates an optional property of an Int enum that also declares `PreferenceStorable`.
    public init<Wrapped: PreferenceStorable & RawRepresentable>(
        _ name: String, store: PreferenceStore? = nil
    ) where Value == Wrapped?, Wrapped.RawValue == Int {
        self.init(Prefs.Key<Wrapped?>(name, default: nil), store: store)
    }

    /// The stored value, or the default.
    public var wrappedValue: Value {
        get { store[key] }
        nonmutating set { store[key] = newValue }
    }

    /// The property itself, for `$property.values` and `$property.reset()`.
    public var projectedValue: Preference<Value> { self }

    /// The current value, then each change from any process.
    public var values: AsyncStream<Value> { store.values(for: key) }

    /// Removes the stored value, so that the property reads its default again.
    ///
    /// - Throws: ``DatabaseError`` when the write fails.
    public func reset() throws {
        try store.removeValue(for: key)
    }
}
