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
    /// The values an integer option accepts.
    var range: ClosedRange<Int>? = nil

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
