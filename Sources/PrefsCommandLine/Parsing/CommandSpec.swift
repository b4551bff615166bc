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
    /// Subcommands, when this command is a group.
    var subcommands: [CommandSpec] = []
    /// The subcommand run when none is given.
    var defaultSubcommand: String? = nil
    /// What to say when the command is given an argument it does not take (a user who
    /// meant another command), after "Unexpected argument 'X'".
    var unexpectedArgumentHint: String? = nil
    /// Builds the command value from what was parsed; nil for a group.
    var build: (@Sendable (ParsedArguments) throws -> Command)? = nil

    func subcommand(named name: String) -> CommandSpec? {
        subcommands.first { $0.name == name || $0.aliases.contains(name) }
    }
}
