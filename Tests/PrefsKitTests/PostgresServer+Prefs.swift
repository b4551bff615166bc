import PrefsKit
import TestSupport

extension PostgresServer {
    /// A new database with the prefs schema (migrated by the superuser, acting for the
    /// account `admin`) and login roles in their groups (`prefs_account`, `prefs_service`).
    func makePrefsDatabase(roles: [(name: String, group: String)]) throws -> String {
        let database = try makeDatabase()
        var options = AppDatabase.Options()
        options.account = "admin"
        _ = try AppDatabase(path: target(database: database), options: options)
        try makeLoginRoles(roles)
        return database
    }

    /// The database opened as a login role, acting for `account` (nil: the role's own).
    func open(_ database: String, as role: String, account: String? = nil) throws -> AppDatabase {
        var options = AppDatabase.Options()
        options.account = account
        options.watchesForChanges = false
        return try AppDatabase(path: target(database: database, user: role), options: options)
    }
}
