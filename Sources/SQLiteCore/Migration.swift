/// One step of a schema: a version number, a name and the SQL that makes it.
public struct Migration: Sendable, Hashable {
    /// The version this migration brings the schema to; versions start at 1 and have no
    /// gaps.
    public let version: Int
    /// A short description, from the file name.
    public let name: String
    /// The SQL script.
    public let sql: String

    /// Creates a migration.
    public init(version: Int, name: String, sql: String) {
        self.version = version
        self.name = name
        self.sql = sql
    }
}
