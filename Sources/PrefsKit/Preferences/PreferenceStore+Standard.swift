import Synchronization

extension PreferenceStore {
    /// The store that a `@Preference` without a `store:` argument uses, as
    /// `UserDefaults.standard` is for `@AppStorage`: the suite `standard` of the database at
    /// the app's default location (``DatabaseLocation/defaultPath(app:variable:)``), opened on
    /// first use.
    ///
    /// Replace it before the properties that use it are read (in a test's set-up, for an app
    /// group, for another path): a property reads the store that is standard at the moment it
    /// is read, as `@AppStorage` reads `defaultAppStorage`.
    ///
    /// ```swift
    /// PreferenceStore.standard = PreferenceStore(database: try .inMemory())
    /// ```
    ///
    /// When the default database cannot be opened, the error goes to the store's
    /// ``errorHandler`` (standard error by default) and the store reads every key as its
    /// default; writes fail and are reported the same way. Nothing traps.
    public static var standard: PreferenceStore {
        get {
            standardStore.withLock { store in
                if let store { return store }
                let opened = openStandard()
                store = opened
                return opened
            }
        }
        set { standardStore.withLock { $0 = newValue } }
    }

    private static let standardStore = Mutex<PreferenceStore?>(nil)

    /// Names the app whose file ``standard`` (and ``DatabaseLocation``'s default path) is,
    /// so that two apps never share one file: call it once at launch, before the first
    /// read. On Linux an app that names none is known by its executable's name; on Apple
    /// platforms by its bundle identifier.
    ///
    /// ```swift
    /// try PreferenceStore.configure(appIdentifier: "com.example.notes")
    /// ```
    ///
    /// - Throws: ``DatabaseLocation/Problem/invalidAppIdentifier(_:reason:)``.
    public static func configure(appIdentifier: String) throws(DatabaseLocation.Problem) {
        try DatabaseLocation.configure(appIdentifier: appIdentifier)
    }

    /// The default database's standard suite, or, when it cannot be opened, an empty
    /// read-only one (the failure reported to `errorHandler`, by default to
    /// ``FailedWrite/report(_:)``).
    static func openStandard(
        at path: String? = nil, errorHandler: (@Sendable (Error) -> Void)? = nil
    ) -> PreferenceStore {
        do {
            return PreferenceStore(
                database: try AppDatabase(path: path ?? DatabaseLocation.defaultPath()))
        } catch {
            var options = AppDatabase.Options()
            options.isReadOnly = true
            // An empty read-only database: reads find nothing, writes are refused.
            let fallback = (try? AppDatabase(path: ":memory:", options: options)).map {
                PreferenceStore(database: $0)
            }
            guard let fallback else {
                preconditionFailure("SQLite cannot open an in-memory database: \(error)")
            }
            if let errorHandler { fallback.errorHandler = errorHandler }
            fallback.report(error)
            return fallback
        }
    }
}
