import Foundation
import PrefsKit
import PrefsPostgreSQL
import TestSupport

extension PostgresServer {
    /// A new database with the prefs schema (migrated by the superuser, acting for the
    /// account `admin`) and login roles in their groups (`prefs_account`, `prefs_service`).
    package func makePrefsDatabase(roles: [(name: String, group: String)]) throws -> String {
        let database = try makeDatabase()
        var options = PostgreSQLOptions()
        options.account = "admin"
        _ = try AppDatabase.postgreSQL(target(database: database), options: options)
        try makeLoginRoles(roles)
        return database
    }

    /// The database opened as a login role, acting for `account` (nil: the role's own).
    package func open(_ database: String, as role: String, account: String? = nil) throws
        -> AppDatabase
    {
        var options = PostgreSQLOptions()
        options.account = account
        options.watchesForChanges = false
        return try AppDatabase.postgreSQL(target(database: database, user: role), options: options)
    }

    /// A new, empty database owned by `plain_owner`, a login role that is no superuser and
    /// may not create roles (as docs/postgresql.md sets a store up); returns its name.
    package func makeDatabaseOfPlainOwner(prefix: String) throws -> String {
        let role = try psql(
            """
            DO $$ BEGIN
                BEGIN CREATE ROLE plain_owner LOGIN NOCREATEROLE;
                EXCEPTION WHEN duplicate_object OR unique_violation THEN NULL; END;
            END $$
            """)
        guard role.status == 0 else { throw PostgresServerError(role.stderr) }
        let name = prefix + UUID().uuidString.lowercased().prefix(8)
        let made = try psql("CREATE DATABASE \(name) OWNER plain_owner")
        guard made.status == 0 else { throw PostgresServerError(made.stderr) }
        return name
    }
}
