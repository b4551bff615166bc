/// A command line that does not parse: exit code 64 with usage.
struct UsageError: Error, Equatable, Sendable {
    var message: String
    /// The command whose usage to show.
    var path: [String]

    init(_ message: String, path: [String]) {
        self.message = message
        self.path = path
    }
}
