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

/// A positional argument.
struct ArgumentSpec: Sendable {
    /// The name shown as `<name>`.
    var name: String
    var help: String
    var isOptional = false
    /// Takes every remaining positional value.
    var isRepeating = false
    /// Values offered by shell completion.
    var completions: [String] = []

    var usage: String {
        let base = "<\(name)>" + (isRepeating ? " ..." : "")
        return isOptional ? "[\(base)]" : base
    }
}

/// A named option: a flag, or an option with a value (possibly repeated).
struct OptionSpec: Sendable {
    enum Kind: Sendable, Equatable {
        case flag
        case value(name: String)
        case repeatedValue(name: String)
    }

    /// The long name without dashes.
    var name: String
    /// A one-letter name without the dash.
    var short: Character? = nil
    var kind: Kind
    var help: String
    /// Values offered by shell completion.
    var completions: [String] = []
    /// The command cannot run without it: the parser says so, and usage shows it without brackets.
    var isRequired = false

    var takesValue: Bool { kind != .flag }

    var valueName: String? {
        switch kind {
        case .flag: nil
        case .value(let name), .repeatedValue(let name): name
        }
    }

    /// `--name <value>` or `-n, --name <value>`.
    var synopsis: String {
        var text = "--\(name)"
        if let valueName { text += " <\(valueName)>" }
        return text
    }

    var helpLabel: String {
        (short.map { "-\($0), " } ?? "") + synopsis
    }
}

/// What the parser found for one command.
struct ParsedArguments: Sendable {
    /// The command's names from the root, e.g. `["selection", "set"]`.
    var path: [String]
    var positionals: [String] = []
    var values: [String: [String]] = [:]
    var flags: Set<String> = []

    func flag(_ name: String) -> Bool { flags.contains(name) }

    func value(_ name: String) -> String? { values[name]?.last }

    func repeated(_ name: String) -> [String] { values[name] ?? [] }

    func positional(_ index: Int) -> String? {
        positionals.indices.contains(index) ? positionals[index] : nil
    }

    /// The last value of an integer option, or nil when absent.
    func integer(_ name: String, in range: ClosedRange<Int> = Int.min...Int.max)
        throws(UsageError) -> Int?
    {
        guard let text = value(name) else { return nil }
        guard let number = Int(text), range.contains(number) else {
            var expected = "an integer"
            if range.lowerBound == 0 && range.upperBound == Int.max {
                expected = "a non-negative integer"
            } else if range.lowerBound == 1 && range.upperBound == Int.max {
                expected = "a positive integer"
            }
            throw UsageError(
                "Invalid value '\(text)' for '--\(name)': expected \(expected)", path: path)
        }
        return number
    }

    /// The last value of an option restricted to a set of choices.
    func choice(_ name: String, from choices: [String]) throws(UsageError) -> String? {
        guard let text = value(name) else { return nil }
        guard choices.contains(text) else {
            throw UsageError(
                "Invalid value '\(text)' for '--\(name)': expected one of "
                    + choices.map { "'\($0)'" }.joined(separator: ", "),
                path: path)
        }
        return text
    }
}

/// A command line that does not parse: exit code 64 with usage.
struct UsageError: Error, Equatable, Sendable {
    var message: String
    /// The command whose usage to show.
    var path: [String]

    init(_ message: String, path: [String]) {
        self.message = message
        self.path = path
    }
}
