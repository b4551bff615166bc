#if !PREFS_NO_POSTGRES
    internal import PostgresCore
#endif

extension DatabaseLocation {
    /// A database location as messages show it: a file path as it is; a connection string as
    /// libpq parsed it, with everything libpq would read as a password shown as `***`
    /// (whatever its spelling: a URI's user part, `pass%77ord=` in a query, quoted values).
    public static func shown(_ location: String) -> String {
        #if PREFS_NO_POSTGRES
            return AppDatabase.isConnectionString(location)
                ? "(a PostgreSQL connection string)" : location
        #else
            return AppDatabase.isConnectionString(location)
                ? ConnectionString.redacted(location) : location
        #endif
    }

    /// Whether a connection string holds a password, as libpq reads it (false for a path).
    public static func holdsPassword(_ location: String) -> Bool {
        #if PREFS_NO_POSTGRES
            return false
        #else
            return AppDatabase.isConnectionString(location) && ConnectionString.hasSecret(location)
        #endif
    }
}
