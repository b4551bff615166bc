import PrefsKit

/// The `prefs` command: parses arguments and runs them against a database.
public enum PrefsCommand {
    /// The version printed by `prefs --version`.
    public static let version = "0.1.0"

    /// Runs the command with the arguments that follow the program name, on the process's
    /// standard streams.
    ///
    /// - Returns: The process exit code (sysexits).
    public static func run(_ arguments: [String]) -> Int32 {
        run(arguments, console: .standard(environment: DatabaseLocation.processEnvironment()))
    }

    static func run(_ arguments: [String], console: Console) -> Int32 {
        let invocation: Invocation
        do {
            invocation = try CommandTable.parser.parse(arguments)
        } catch {
            console.error(CommandTable.helpFormatter.errorText(error))
            return CommandFailure.usage
        }
        do {
            try CommandRunner(invocation: invocation, console: console).run()
            return 0
        } catch {
            let failure = CommandFailure(error)
            console.printError(failure.message)
            return failure.exitCode
        }
    }
}
