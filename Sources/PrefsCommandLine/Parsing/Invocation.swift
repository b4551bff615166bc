/// A parsed command line.
struct Invocation: Equatable, Sendable {
    var globals: GlobalOptions
    var command: Command
}
