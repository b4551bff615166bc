/// The global options, accepted before or after the subcommand.
struct GlobalOptions: Equatable, Sendable {
    var databasePath: String?
    /// The app whose default database to use (`--app`).
    var app: String?
    var suite: String?
    /// The account of a PostgreSQL database (`--account`).
    var account: String?
    /// Open a database file that another user owns or may write (`--allow-shared`).
    var allowsSharedFile = false
    var isJSON = false
    var isQuiet = false
}
