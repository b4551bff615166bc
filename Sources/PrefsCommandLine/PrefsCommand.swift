import PrefsKit

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The `prefs` command: parses arguments and runs them against a database.
public enum PrefsCommand {
    /// The version printed by `prefs --version`.
    public static let version = "0.1.0"

    /// Runs the command with the arguments that follow the program name, on the process's
    /// standard streams.
    ///
    /// - Returns: The process exit code (sysexits).
    public static func run(_ arguments: [String]) -> Int32 {
        run(arguments, console: Console.standard())
    }

    /// Runs the command with the process's own arguments, on its standard streams. They are
    /// read from `argv` once, as bytes, and each must be UTF-8: `CommandLine.arguments`
    /// would repair invalid UTF-8 with U+FFFD, which would quietly turn a key into another.
    ///
    /// - Returns: The process exit code (sysexits).
    public static func runWithProcessArguments() -> Int32 {
        let console = Console.standard()
        let count = Int(CommandLine.argc)
        var arguments: [String] = []
        arguments.reserveCapacity(max(0, count - 1))
        for index in 1..<max(1, count) {
            guard let raw = CommandLine.unsafeArgv[index] else { continue }
            // The C-string form, not `String(validating:as:)`: that one is generic over the
            // encoding, and its first call costs a start-up the generic types' metadata.
            guard let argument = String(validatingCString: raw) else {
                console.printError("Argument \(index) is not valid UTF-8")
                return CommandFailure.usage
            }
            arguments.append(argument)
        }
        return run(arguments, console: console)
    }

    /// Parses arguments without running them (for fuzzing and tools).
    ///
    /// - Returns: The usage error text, or nil when the arguments parse.
    public static func usageError(for arguments: [String]) -> String? {
        do {
            _ = try CommandTable.parser.parse(arguments)
            return nil
        } catch {
            return CommandTable.helpFormatter.errorText(error)
        }
    }

    static func run(_ arguments: [String], console: Console) -> Int32 {
        let invocation: Invocation
        do {
            invocation = try CommandTable.parser.parse(arguments)
        } catch {
            // --json asked for, even on a line that does not parse: the error as JSON.
            if (arguments.firstIndex(of: "--").map { arguments[..<$0] } ?? arguments[...]).contains(
                "--json")
            {
                printJSONError(error.message, code: CommandFailure.usage, console: console)
            } else {
                console.error(CommandTable.helpFormatter.errorText(error))
            }
            return CommandFailure.usage
        }
        do {
            try CommandContext(invocation: invocation, console: console).run()
            return 0
        } catch {
            let failure = CommandFailure(error)
            if invocation.globals.isJSON {
                printJSONError(
                    failure.message, code: failure.exitCode, console: console,
                    engineCode: failure.engineCode, cause: failure.cause)
            } else {
                console.printError(failure.message)
            }
            return failure.exitCode
        }
    }

    /// `{"error": {"code": 65, "message": "..."}}` on one line of stderr, with the engine's
    /// code and its own error when an engine or a sync server gave them; the exit code is the
    /// same as without --json.
    static func printJSONError(
        _ message: String, code: Int32, console: Console, engineCode: String? = nil,
        cause: String? = nil
    ) {
        var members: [(String, JSONValue)] = [
            ("code", .number(String(code))), ("message", .string(message)),
        ]
        if let engineCode { members.append(("engineCode", .string(engineCode))) }
        if let cause { members.append(("cause", .string(cause))) }
        let error: JSONValue = .object([("error", .object(members))])
        console.error(error.serialized(.compact) + "\n")
    }
}
