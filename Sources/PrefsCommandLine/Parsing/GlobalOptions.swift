/// The global options, accepted before or after the subcommand.
struct GlobalOptions: Equatable, Sendable {
    var databasePath: String?
    var suite: String?
    var isJSON = false
    var isQuiet = false
}
