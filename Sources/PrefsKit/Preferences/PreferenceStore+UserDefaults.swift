#if canImport(FoundationEssentials) && !PREFS_FULL_FOUNDATION
    import FoundationEssentials
#else
    import Foundation
#endif

// The API of Foundation's UserDefaults, so that an app switches by changing one line:
// `let defaults = PreferenceStore(database: database, suite: "group.app")` in place of
// `UserDefaults(suiteName: "group.app")`. Setters do not throw, as UserDefaults' do not;
// a failed write goes to `errorHandler` and the store keeps reporting what the file holds.
extension PreferenceStore {
    /// The stored value, else the registered default, as `Bool`, `Int`, `Double`,
    /// `String`, `URL`, `Date`, `Data`, `[Any]` or `[String: Any]`.
    public func object(forKey key: String) -> Any? {
        (try? value(forKey: key))?.anyValue
    }

    /// Stores a property-list value (or a URL); nil removes the key. Unsupported values
    /// and failed writes are reported to ``errorHandler``.
    public func set(_ value: Any?, forKey key: String) {
        guard let value else {
            removeObject(forKey: key)
            return
        }
        guard let converted = PreferenceValue(any: value) else {
            report(
                PreferenceError.invalidValue(
                    key: key, reason: "\(type(of: value)) is not a property-list type"))
            return
        }
        setReportingErrors(converted, forKey: key)
    }

    /// Stores a Bool.
    public func set(_ value: Bool, forKey key: String) {
        setReportingErrors(.bool(value), forKey: key)
    }
    /// Stores an Int.
    public func set(_ value: Int, forKey key: String) {
        setReportingErrors(.int(value), forKey: key)
    }
    /// Stores a Double.
    public func set(_ value: Double, forKey key: String) {
        setReportingErrors(.double(value), forKey: key)
    }
    /// Stores a Float, kept as a Float (NaN and the infinities too).
    public func set(_ value: Float, forKey key: String) {
        setReportingErrors(.float(value), forKey: key)
    }
    /// Stores a URL; nil removes the key.
    public func set(_ url: URL?, forKey key: String) {
        setReportingErrors(url.map(PreferenceValue.url), forKey: key)
    }

    /// Removes a key.
    public func removeObject(forKey key: String) {
        setReportingErrors(nil, forKey: key)
    }

    /// Stores a typed key's value as its subscript's setter does: errors to the handler.
    @usableFromInline
    func setReportingErrors<Value>(_ value: Value, for key: Prefs.Key<Value>) {
        do {
            try set(value, for: key)
        } catch {
            report(error)
        }
    }

    @usableFromInline
    func setReportingErrors(_ value: PreferenceValue?, forKey key: String) {
        do {
            try setValue(value, forKey: key)
        } catch {
            report(error)
        }
    }

    /// The value read as a Bool (see ``PreferenceValue/coercedBool``); false when absent.
    public func bool(forKey key: String) -> Bool {
        (try? value(forKey: key))?.coercedBool ?? false
    }

    /// The value read as an Int (see ``PreferenceValue/coercedInteger``); 0 when absent.
    public func integer(forKey key: String) -> Int {
        (try? value(forKey: key))?.coercedInteger ?? 0
    }

    /// The value read as a Double (see ``PreferenceValue/coercedDouble``); 0 when absent.
    public func double(forKey key: String) -> Double {
        (try? value(forKey: key))?.coercedDouble ?? 0
    }

    /// The value read as a Float; 0 when absent.
    public func float(forKey key: String) -> Float {
        Float((try? value(forKey: key))?.coercedDouble ?? 0)
    }

    /// The value read as a String (numbers convert); nil when absent or of another type.
    public func string(forKey key: String) -> String? {
        (try? value(forKey: key))?.coercedString
    }

    /// The value read as a URL (a string is a file path); nil otherwise.
    public func url(forKey key: String) -> URL? {
        (try? value(forKey: key))?.coercedURL
    }

    /// The value when it is Data; nil otherwise.
    public func data(forKey key: String) -> Data? {
        guard case .data(let bytes)? = try? value(forKey: key) else { return nil }
        return bytes
    }

    /// The value when it is an array; nil otherwise.
    public func array(forKey key: String) -> [Any]? {
        guard case .array(let elements)? = try? value(forKey: key) else { return nil }
        return elements.map(\.anyValue)
    }

    /// The value when it is an array of strings; nil otherwise.
    public func stringArray(forKey key: String) -> [String]? {
        guard case .array(let elements)? = try? value(forKey: key) else { return nil }
        var strings: [String] = []
        for element in elements {
            guard case .string(let text) = element else { return nil }
            strings.append(text)
        }
        return strings
    }

    /// The value when it is a dictionary; nil otherwise.
    public func dictionary(forKey key: String) -> [String: Any]? {
        guard case .dictionary(let entries)? = try? value(forKey: key) else { return nil }
        return entries.mapValues(\.anyValue)
    }

    /// Every value visible in the suite: registered defaults overlaid by stored values.
    public func dictionaryRepresentation() -> [String: Any] {
        var merged = registeredDefaults
        merged.merge((try? storedValues()) ?? [:]) { $1 }
        return merged.mapValues(\.anyValue)
    }
}
