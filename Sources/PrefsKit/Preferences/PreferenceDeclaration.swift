/// A key an app declares: its type, its default and what it is for.
///
/// Declarations are stored in the file, so the `prefs` command can show defaults, tell a
/// default from a value the user set, and refuse a value of the wrong type.
public struct PreferenceDeclaration: Sendable, Hashable {
    /// The key's name.
    public let key: String
    /// The type values of the key must have.
    public let type: PreferenceType
    /// The value read when none is stored; nil when the key has no default.
    public let defaultValue: PreferenceValue?
    /// What the key is for.
    public let description: String?
    /// Whether the key's values stay on this device when it syncs (PrefsSync's `DeviceSync`):
    /// a window size, a device's own setting. False: they follow the user to the account's devices.
    public let isDeviceLocal: Bool

    /// Creates a declaration.
    ///
    /// - Precondition: The default, when given, has the declared type.
    public init(
        key: String, type: PreferenceType, defaultValue: PreferenceValue? = nil,
        description: String? = nil, isDeviceLocal: Bool = false
    ) {
        self.key = key
        self.type = type
        self.defaultValue = defaultValue
        self.description = description
        self.isDeviceLocal = isDeviceLocal
    }
}
