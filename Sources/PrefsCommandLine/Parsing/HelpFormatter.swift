/// Help text and usage lines in swift-argument-parser's layout:
/// OVERVIEW, USAGE, ARGUMENTS, OPTIONS, SUBCOMMANDS.
struct HelpFormatter {
    let root: CommandSpec
    let globalOptions: [OptionSpec]

    /// The command at a path, or nil when the path names none.
    func command(at path: [String]) -> CommandSpec? {
        var node = root
        for name in path {
            guard let sub = node.subcommand(named: name) else { return nil }
            node = sub
        }
        return node
    }

    func usageLine(for path: [String]) -> String {
        guard let node = command(at: path) else { return "prefs <command>" }
        var parts = [(["prefs"] + path).joined(separator: " ")]
        if !node.subcommands.isEmpty && node.make == nil {
            parts.append("<subcommand>")
        } else {
            parts += node.arguments.map(\.usage)
            for option in node.options {
                let text =
                    option.synopsis
                    + (option.kind == .repeatedValue(name: option.valueName ?? "") ? " ..." : "")
                parts.append(option.isRequired ? text : "[\(text)]")
            }
        }
        return parts.joined(separator: " ")
    }

    func help(for path: [String]) -> String {
        guard let node = command(at: path) else { return help(for: []) }
        var text = "OVERVIEW: \(node.abstract)\n"
        if let discussion = node.discussion { text += "\n" + discussion + "\n" }
        text += "\nUSAGE: \(usageLine(for: path))\n"
        if !node.arguments.isEmpty {
            text += "\nARGUMENTS:\n"
            for argument in node.arguments {
                text += row("<\(argument.name)>", argument.help)
            }
        }
        text += "\nOPTIONS:\n"
        for option in node.options + globalOptions(for: node) {
            text += row(option.helpLabel, option.help)
        }
        text += row("--version", "Show the version.")
        text += row("-h, --help", "Show help information.")
        if !node.subcommands.isEmpty {
            text += "\nSUBCOMMANDS:\n"
            for sub in node.subcommands {
                var label = sub.name
                if sub.name == node.defaultSubcommand { label += " (default)" }
                text += row(label, sub.abstract)
            }
            text +=
                "\n  See 'prefs help \((path + ["<subcommand>"]).joined(separator: " "))' "
                + "for detailed help.\n"
        }
        return text
    }

    /// The global options a command takes: `--suite`, `--account` and `--json` only where
    /// its scope says (a group lists them all: its subcommands differ).
    func globalOptions(for node: CommandSpec) -> [OptionSpec] {
        if node.make == nil { return globalOptions }
        return globalOptions.filter { option in
            switch option.name {
            case "suite": node.scope.contains(.suite)
            case "account": !node.scope.isDisjoint(with: [.account, .hubAccount])
            case "json": node.scope.contains(.json)
            default: true
            }
        }
    }

    private func row(_ label: String, _ help: String) -> String {
        let indent = "  "
        let column = 26
        if label.count + indent.count < column - 1 {
            return indent + label
                + String(repeating: " ", count: column - indent.count - label.count)
                + help + "\n"
        }
        return indent + label + "\n" + String(repeating: " ", count: column) + help + "\n"
    }

    /// The three lines printed for a usage error.
    func errorText(_ error: UsageError) -> String {
        let path = command(at: error.path) == nil ? [] : error.path
        let helpCommand = (["prefs"] + path + ["--help"]).joined(separator: " ")
        return "Error: \(error.message)\n"
            + "Usage: \(usageLine(for: path))\n"
            + "  See '\(helpCommand)' for more information.\n"
    }
}
