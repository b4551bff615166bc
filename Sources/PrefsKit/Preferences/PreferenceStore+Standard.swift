import Synchronization

extension PreferenceStore {
    /// The store that a `@Preference` without a `store:` argument uses, as
    /// `UserDefaults.standard` is for `@AppStorage`: the suite `standard` of the database at
    /// the default location (``DatabaseLocation/defaultPath(variable:)``), opened on first use.
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

    /// The default database's standard suite, or, when it cannot be opened, an empty
    /// read-only one (the failure reported).
    static func openStandard(at path: String = DatabaseLocation.defaultPath()) -> PreferenceStore {
        do {
            return PreferenceStore(database: try AppDatabase(path: path))
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
            fallback.report(error)
            return fallback
        }
    }
}
