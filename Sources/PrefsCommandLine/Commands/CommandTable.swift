import PrefsKit

/// The commands of `prefs`, declared once for parsing, help and completion.
enum CommandTable {
    static let globalOptions: [OptionSpec] = [
        OptionSpec(
            name: "db", kind: .value(name: "path"),
            help:
                "The database file or PostgreSQL connection string (default: $PREFS_DB, else"
                + " the user data folder)."),
        OptionSpec(
            name: "account", kind: .value(name: "name"),
            help: "The account on a PostgreSQL server (default: $PREFS_ACCOUNT, else the role)."),
        OptionSpec(
            name: "suite", kind: .value(name: "name"),
            help: "The preference suite (default: $PREFS_SUITE, else 'standard')."),
        OptionSpec(
            name: "allow-shared", kind: .flag,
            help:
                "Open a database file that another user owns or may write (default:"
                + " $PREFS_ALLOW_SHARED=1)."),
        OptionSpec(name: "json", kind: .flag, help: "Print JSON instead of text."),
        OptionSpec(
            name: "quiet", short: "q", kind: .flag, help: "Print no messages, only data and errors."
        ),
    ]

    static let typeNames = PreferenceType.allCases.map(\.rawValue)

    /// The type names for help texts, joined by a plain loop: the table is built on every
    /// run, and the first call of the generic `joined(separator:)` has the runtime look up
    /// its iterator's metadata (about 0.3 M instructions of a 3 M instruction `prefs get`).
    static let typeList: String = {
        var list = ""
        for name in typeNames {
            if !list.isEmpty { list += ", " }
            list += name
        }
        return list
    }()

    static let root = CommandSpec(
        name: "prefs",
        abstract: "Read and write an app's preferences, selections and bookmarks.",
        discussion: """
            The database is one SQLite file shared with the apps that link PrefsKit.
            Plain output is made for $(...); pass --json for scripts.
            """,
        subcommandEntries: [
            SubcommandEntry("get") { getCommand },
            SubcommandEntry("describe") { describeCommand },
            SubcommandEntry("rename", aliases: ["mv"]) { renameCommand },
            SubcommandEntry("find") { findCommand },
            SubcommandEntry("set") { setCommand },
            SubcommandEntry("delete", aliases: ["remove", "unset"]) { deleteCommand },
            SubcommandEntry("list", aliases: ["ls"]) { listCommand },
            SubcommandEntry("reset") { resetCommand },
            SubcommandEntry("watch") { watchCommand },
            SubcommandEntry("history") { historyCommand },
            SubcommandEntry("suites") { suitesCommand },
            SubcommandEntry("declare") { declareCommand },
            SubcommandEntry("export") { exportCommand },
            SubcommandEntry("import") { importCommand },
            SubcommandEntry("onboarding") { onboarding },
            SubcommandEntry("selection", aliases: ["selections"]) { selection },
            SubcommandEntry("bookmark", aliases: ["bookmarks"]) { bookmark },
            SubcommandEntry("sync") { sync },
            SubcommandEntry("doctor") { doctor },
            SubcommandEntry("version") { version },
            SubcommandEntry("completion") { completion },
            SubcommandEntry("help") { help },
        ])

    /// `-z`/`--null`, as `git config -z`: entries end with NUL instead of a newline, so that
    /// values with newlines (or any bytes but NUL) read back safely.
    static func nullOption(entries: String) -> OptionSpec {
        OptionSpec(
            name: "null", short: "z", kind: .flag,
            help: "End \(entries) with NUL instead of a newline.")
    }

    static let version = CommandSpec(
        name: "version", abstract: "Show the version.", build: { _ in .version })

    /// The top-level command names, for completing `prefs help`.
    static let helpTopics =
        preferenceCommands.map(\.name)
        + [onboarding, selection, bookmark, sync, doctor, version, completion].map(\.name)

    static let help = CommandSpec(
        name: "help", abstract: "Show help for a command.",
        arguments: [
            ArgumentSpec(
                name: "command", help: "The command to explain.", isOptional: true,
                isRepeating: true,
                completions: helpTopics)
        ],
        build: { parsed in .help(path: parsed.positionals) })

    static let parser = CommandLineParser(root: root, globalOptions: globalOptions)
    static let helpFormatter = HelpFormatter(root: root, globalOptions: globalOptions)
}
