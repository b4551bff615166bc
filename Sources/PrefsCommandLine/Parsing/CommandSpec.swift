/// The declaration of one command: its names, help, arguments, options and subcommands.
///
/// The same declaration drives parsing, help, error messages and shell completion, so they
/// cannot disagree.
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
    /// Options of this command (globals are added by the parser).
    var options: [OptionSpec] = []
    /// Subcommands, when this command is a group, by name; each is built when first used.
    var subcommandEntries: [SubcommandEntry] = []
    /// The subcommand run when none is given.
    var defaultSubcommand: String? = nil
    /// What to say when the command is given an argument it does not take (a user who
    /// meant another command), after "Unexpected argument 'X'".
    var unexpectedArgumentHint: String? = nil
    /// Builds the command value from what was parsed; nil for a group.
    var build: (@Sendable (ParsedArguments) throws -> Command)? = nil

    /// Every subcommand, built (for help, completion and suggestions).
    var subcommands: [CommandSpec] { subcommandEntries.map { $0.spec() } }

    var hasSubcommands: Bool { !subcommandEntries.isEmpty }

    /// The subcommand of that name or alias; only that one is built.
    func subcommand(named name: String) -> CommandSpec? {
        subcommandEntries.first { $0.name == name || $0.aliases.contains(name) }?.spec()
    }
}

extension CommandSpec {
    /// A group whose subcommands are built with it.
    init(
        name: String, aliases: [String] = [], abstract: String, discussion: String? = nil,
        arguments: [ArgumentSpec] = [], options: [OptionSpec] = [], subcommands: [CommandSpec],
        defaultSubcommand: String? = nil, unexpectedArgumentHint: String? = nil
    ) {
        self.init(
            name: name, aliases: aliases, abstract: abstract, discussion: discussion,
            arguments: arguments, options: options,
            subcommandEntries: subcommands.map(SubcommandEntry.init),
            defaultSubcommand: defaultSubcommand, unexpectedArgumentHint: unexpectedArgumentHint)
    }
}

/// A subcommand as its group holds it: its names, known without building it, and the
/// spec, made on first use. `prefs get` then builds the table of `get` alone, not the help,
/// options and completions of every command (a tenth of its start-up instructions).
struct SubcommandEntry: Sendable {
    let name: String
    let aliases: [String]
    let spec: @Sendable () -> CommandSpec

    /// A subcommand whose spec is a lazily initialised static: `name` and `aliases` must be
    /// the spec's own (a test walks the table to check).
    init(_ name: String, aliases: [String] = [], _ spec: @escaping @Sendable () -> CommandSpec) {
        self.name = name
        self.aliases = aliases
        self.spec = spec
    }

    /// A subcommand built already.
    init(_ built: CommandSpec) {
        self.init(built.name, aliases: built.aliases) { built }
    }
}
