/// The declaration of one command or group: its names, help, arguments, options, the global
/// options it takes, and its subcommands.
///
/// Each command's type declares its spec (``RunnableCommand/spec``); the same declaration
/// drives parsing, help, error messages and shell completion, so they cannot disagree.
struct CommandSpec: Sendable {
    /// The name typed on the command line.
    var name: String
    /// Other accepted names.
    var aliases: [String] = []
    /// One sentence for OVERVIEW and the parent's SUBCOMMANDS list.
    var abstract: String
    /// More text after the overview.
    var discussion: String? = nil
    /// Positional arguments in order.
    var arguments: [ArgumentSpec] = []
    /// Options of this command (the global options it takes are added by the parser).
    var options: [OptionSpec] = []
    /// Which of `--suite`, `--account` and `--json` apply.
    var scope: GlobalScope = .preferences
    /// Subcommands, when this is a group, by name; each is built when first used.
    var subcommandEntries: [SubcommandEntry] = []
    /// The subcommand run when none is given.
    var defaultSubcommand: String? = nil
    /// What to say when the command is given an argument it does not take (a user who
    /// meant another command), after "Unexpected argument 'X'".
    var unexpectedArgumentHint: String? = nil
    /// Makes the command from what was parsed; nil for a group.
    var make: (@Sendable (ParsedArguments) throws(UsageError) -> any RunnableCommand)? = nil

    /// Every subcommand, built (for help, completion and suggestions).
    var subcommands: [CommandSpec] { subcommandEntries.map { $0.spec() } }

    var hasSubcommands: Bool { !subcommandEntries.isEmpty }

    /// The subcommand of that name or alias; only that one is built.
    func subcommand(named name: String) -> CommandSpec? {
        subcommandIndex(named: name).map { subcommandEntries[$0].spec() }
    }

    /// Where the subcommand of that name or alias is in ``subcommandEntries``. (The parser
    /// builds the one it finds: an optional spec would cost a start-up its metadata.)
    func subcommandIndex(named name: String) -> Int? {
        subcommandEntries.firstIndex { $0.name == name || $0.aliases.contains(name) }
    }
}

extension CommandSpec {
    /// The spec of a command type: its name and aliases are the type's.
    init<Command: RunnableCommand>(
        _ type: Command.Type, abstract: String, discussion: String? = nil,
        arguments: [ArgumentSpec] = [], options: [OptionSpec] = [],
        scope: GlobalScope, unexpectedArgumentHint: String? = nil
    ) {
        self.init(
            name: Command.name, aliases: Command.aliases, abstract: abstract,
            discussion: discussion, arguments: arguments, options: options, scope: scope,
            unexpectedArgumentHint: unexpectedArgumentHint,
            make: { parsed throws(UsageError) in try Command(parsing: parsed) })
    }

    /// The spec of a group type: its subcommands are entries, built when used.
    init<Group: CommandGroup>(
        group type: Group.Type, abstract: String, discussion: String? = nil,
        subcommands: [SubcommandEntry], defaultSubcommand: String? = nil
    ) {
        self.init(
            name: Group.name, aliases: Group.aliases, abstract: abstract,
            discussion: discussion, subcommandEntries: subcommands,
            defaultSubcommand: defaultSubcommand)
    }
}

/// A subcommand as its group holds it: its names, known without building it, and the
/// spec, made on first use. `prefs get` then builds the table of `get` alone, not the help,
/// options and completions of every command (a tenth of its start-up instructions).
struct SubcommandEntry: Sendable {
    let name: String
    let aliases: [String]
    let spec: @Sendable () -> CommandSpec

    /// The entry of a command or group type.
    init<Node: CommandNode>(_ type: Node.Type) {
        name = Node.name
        aliases = Node.aliases
        spec = { Node.spec }
    }
}

/// Which global options a command takes besides `--db`, `--allow-shared` and `--quiet`.
struct GlobalScope: OptionSet, Sendable {
    let rawValue: Int

    /// `--suite`: preferences (and the onboarding flag) are kept per suite.
    static let suite = GlobalScope(rawValue: 1)
    /// `--account` of the PostgreSQL database the command opens.
    static let account = GlobalScope(rawValue: 2)
    /// `--account` of the sync hub: it applies whatever the database is.
    static let hubAccount = GlobalScope(rawValue: 4)
    /// `--json`.
    static let json = GlobalScope(rawValue: 8)

    /// Preference commands: per suite, on a file or a server, with JSON output.
    static let preferences: GlobalScope = [.suite, .account, .json]
    /// Selections, bookmarks and maintenance: one set per database, not per suite.
    static let suiteless: GlobalScope = [.account, .json]
    /// Sync: the account is the hub's.
    static let sync: GlobalScope = [.hubAccount, .json]
}
