import PrefsKit

/// The root of `prefs`: its global options and its commands, in the order help lists them.
enum CommandTable {
    /// Accepted before or after the subcommand. `--suite`, `--account` and `--json` apply to
    /// the commands whose ``CommandSpec/scope`` says so.
    static let globalOptions: [OptionSpec] = [
        OptionSpec(
            name: "db", kind: .value(name: "path"),
            help:
                "The database file or PostgreSQL connection string (default: $PREFS_DB, else"
                + " the user data folder)."),
        OptionSpec(
            name: "app", kind: .value(name: "name"),
            help:
                "The app whose database to use, in the user data folder (default: $PREFS_APP,"
                + " else 'prefs'; see 'prefs apps')."),
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

    /// The top-level commands and groups. A new command is one line here or in its group.
    static let entries: [SubcommandEntry] = [
        SubcommandEntry(GetCommand.self),
        SubcommandEntry(DescribeCommand.self),
        SubcommandEntry(RenameCommand.self),
        SubcommandEntry(FindCommand.self),
        SubcommandEntry(SetCommand.self),
        SubcommandEntry(DeleteCommand.self),
        SubcommandEntry(ListCommand.self),
        SubcommandEntry(ResetCommand.self),
        SubcommandEntry(WatchCommand.self),
        SubcommandEntry(HistoryCommand.self),
        SubcommandEntry(StatsCommand.self),
        SubcommandEntry(SuitesCommand.self),
        SubcommandEntry(DeclareCommand.self),
        SubcommandEntry(ExportCommand.self),
        SubcommandEntry(ImportCommand.self),
        SubcommandEntry(OnboardingGroup.self),
        SubcommandEntry(SelectionGroup.self),
        SubcommandEntry(BookmarkGroup.self),
        SubcommandEntry(SyncGroup.self),
        SubcommandEntry(DoctorCommand.self),
        SubcommandEntry(AppsCommand.self),
        SubcommandEntry(VersionCommand.self),
        SubcommandEntry(CompletionCommand.self),
        SubcommandEntry(HelpCommand.self),
    ]

    static let root = CommandSpec(
        name: "prefs",
        abstract: "Read and write an app's preferences, selections and bookmarks.",
        discussion: """
            The database is one SQLite file shared with the apps that link PrefsKit.
            Plain output is made for $(...); pass --json for scripts.
            """,
        subcommandEntries: entries)

    /// The top-level command names but `help`, for completing `prefs help`.
    static var helpTopics: [String] {
        entries.map(\.name).filter { $0 != HelpCommand.name }
    }

    static let parser = CommandLineParser(root: root, globalOptions: globalOptions)
    static let helpFormatter = HelpFormatter(root: root, globalOptions: globalOptions)
}

extension Flag {
    /// `-z`/`--null`, as `git config -z`: entries end with NUL instead of a newline, so that
    /// values with newlines (or any bytes but NUL) read back safely.
    static func null(entries: String) -> Flag {
        Flag("null", short: "z", help: "End \(entries) with NUL instead of a newline.")
    }
}

extension PreferenceType: ArgumentValue {
    /// The type names for help texts, joined by a plain loop: the first call of the generic
    /// `joined(separator:)` has the runtime look up its iterator's metadata.
    static let list: String = {
        var list = ""
        for type in allCases {
            if !list.isEmpty { list += ", " }
            list += type.rawValue
        }
        return list
    }()
}

extension InterchangeFormat: ArgumentValue {}
extension BookmarkFormat: ArgumentValue {}
extension BookmarkGrouping: ArgumentValue {}
extension BookmarkQuery.Sort: ArgumentValue {}
extension SelectionPolicy: ArgumentValue {}
extension Shell: ArgumentValue {}
