import PrefsKit

/// The `prefs` command: parses arguments and runs them against a database.
public enum PrefsCommand {
    /// The version printed by `prefs --version`.
    public static let version = "0.1.0"

    /// Runs the command with the arguments that follow the program name.
    ///
    /// - Returns: The process exit code.
    public static func run(_ arguments: [String]) -> Int32 {
        switch arguments.first {
        case "--version", "version":
            writeOutput("prefs \(version)\n")
            return 0
        case nil, "help", "--help", "-h":
            writeOutput(helpText)
            return 0
        default:
            writeError("Error: Unknown command '\(arguments[0])'\n\(usage)\n")
            return 64
        }
    }

    static let usage = "Usage: prefs [--db PATH] [--suite NAME] [--json] [--quiet] <command> ..."

    static let helpText = """
        OVERVIEW: Read and write an app's preferences, selections and bookmarks.

        USAGE: prefs [--db PATH] [--suite NAME] [--json] [--quiet] <command> ...

        OPTIONS:
          -h, --help              Show help information.
          --version               Show the version.

        SUBCOMMANDS:
          version                 Show the version.
          help                    Show help information.

        """
}
