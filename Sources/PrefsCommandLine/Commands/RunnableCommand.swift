/// A command or a group of commands, as its parent lists it.
protocol CommandNode: SendableMetatype {
    /// The name typed on the command line; a computed literal (`{ "get" }`), not a stored
    /// static: a group lists every subcommand's name on each run, and each stored static
    /// would be initialised once, behind a lock, first.
    static var name: String { get }
    /// Other accepted names.
    static var aliases: [String] { get }
    /// The declaration: help, arguments, options, scope, subcommands.
    static var spec: CommandSpec { get }
}

extension CommandNode {
    static var aliases: [String] { [] }
}

/// A command of `prefs`: one type that declares its arguments and options as typed values
/// (``Argument``, ``Option``, ``Flag``) in its ``CommandNode/spec``, is made from what the
/// parser read with them, and runs itself.
///
/// Adding a command is one new file with such a type, and one line in its group's list.
protocol RunnableCommand: CommandNode, Equatable, Sendable {
    /// Reads the command's values; a value that does not read is a usage error (exit 64).
    init(parsing parsed: ParsedArguments) throws(UsageError)
    /// Runs the command; an error is printed on one line with its exit code.
    func run(_ context: CommandContext) throws
    /// Whether the command runs without the database (help, version, completion, apps), so
    /// that it runs where there is no default location.
    var opensNoDatabase: Bool { get }
}

extension RunnableCommand {
    var opensNoDatabase: Bool { false }
}

/// A group of commands, such as `bookmark`: its spec lists the subcommands' types.
protocol CommandGroup: CommandNode {}
