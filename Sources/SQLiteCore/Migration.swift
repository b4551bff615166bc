/// One step of a schema: a version number, a name, the SQL that makes it, and optionally code
/// run after the SQL in the same transaction (for what depends on the data, such as objects
/// made only where a row says so).
package struct Migration: Sendable, Hashable {
    /// The version this migration brings the schema to; versions start at 1 and have no
    /// gaps.
    package let version: Int
    /// A short description, from the file name.
    package let name: String
    /// The SQL script.
    package let sql: String
    /// Run after ``sql``, in its transaction: its failure rolls the step back.
    package let afterward: (@Sendable (Connection) throws -> Void)?

    /// Creates a migration.
    package init(
        version: Int, name: String, sql: String,
        afterward: (@Sendable (Connection) throws -> Void)? = nil
    ) {
        self.version = version
        self.name = name
        self.sql = sql
        self.afterward = afterward
    }

    /// Steps are equal when their version, name and SQL are: code cannot be compared.
    package static func == (lhs: Migration, rhs: Migration) -> Bool {
        lhs.version == rhs.version && lhs.name == rhs.name && lhs.sql == rhs.sql
    }

    package func hash(into hasher: inout Hasher) {
        hasher.combine(version)
        hasher.combine(name)
        hasher.combine(sql)
    }
}
