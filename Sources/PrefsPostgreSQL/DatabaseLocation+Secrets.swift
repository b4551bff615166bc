internal import PostgresCore
import PrefsKit

extension DatabaseLocation {
    /// A database location as messages show it: a file path as it is; a connection string as
    /// libpq parsed it, with everything libpq would read as a password shown as `***`
    /// (whatever its spelling: a URI's user part, `pass%77ord=` in a query, quoted values).
    public static func shown(_ location: String) -> String {
        AppDatabase.isConnectionString(location) ? ConnectionString.redacted(location) : location
    }

    /// Whether a connection string holds a password, as libpq reads it (false for a path).
    public static func holdsPassword(_ location: String) -> Bool {
        AppDatabase.isConnectionString(location) && ConnectionString.hasSecret(location)
    }
}
