/// A parsed command line.
struct Invocation: Sendable {
    var globals: GlobalOptions
    var command: any RunnableCommand
    /// The command's names from the root, e.g. `["selection", "set"]`.
    var path: [String]
    /// The global options the command takes.
    var scope: GlobalScope
}
