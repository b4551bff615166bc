import PrefsKit

/// `prefs help [COMMAND ...]` (and `-h`/`--help` anywhere).
struct HelpCommand: RunnableCommand {
    static var name: String { "help" }
    var opensNoDatabase: Bool { true }
    static let command = RepeatingArgument<String>(
        "command", help: "The command to explain.", isOptional: true,
        completions: CommandTable.helpTopics)
    static let spec = CommandSpec(
        Self.self, abstract: "Show help for a command.", arguments: [command.spec],
        scope: [.suite, .account])

    var path: [String]

    func run(_ context: CommandContext) throws {
        let formatter = CommandTable.helpFormatter
        guard formatter.command(at: path) != nil else {
            var message = "Unknown command '\(path.joined(separator: " "))'"
            // The deepest known group, and the name nearest to what was typed under it.
            var known: [String] = []
            while known.count < path.count,
                formatter.command(at: known + [path[known.count]]) != nil
            {
                known.append(path[known.count])
            }
            if let group = formatter.command(at: known), known.count < path.count,
                let nearest = Suggestion.nearest(
                    to: path[known.count],
                    among: group.subcommands.flatMap { [$0.name] + $0.aliases })
            {
                message +=
                    ". Did you mean 'prefs help \((known + [nearest]).joined(separator: " "))'?"
            } else {
                message += "; see 'prefs --help'"
            }
            throw CommandFailure(message, exitCode: CommandFailure.usage)
        }
        context.console.print(formatter.help(for: path))
    }
}

extension HelpCommand {
    init(parsing parsed: ParsedArguments) throws(UsageError) {
        self.init(path: try parsed[Self.command])
    }
}
