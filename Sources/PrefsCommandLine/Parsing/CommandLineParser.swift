/// Turns `[String]` into an ``Invocation``; a pure function, tested directly.
///
/// The dialect of swift-argument-parser: subcommands and aliases, `--name value` and
/// `--name=value`, `--` ends options, repeated options, `-h`/`--help` and `--version`
/// anywhere, global options before or after the subcommand, and "Did you mean ...?" for
/// misspellings.
struct CommandLineParser: Sendable {
    let root: CommandSpec
    let globalOptions: [OptionSpec]

    func parse(_ arguments: [String]) throws(UsageError) -> Invocation {
        var node = root
        var parsed = ParsedArguments(path: [])
        var index = 0
        var optionsEnded = false
        var wantsHelp = false

        while index < arguments.count {
            let argument = arguments[index]
            index += 1
            if optionsEnded || argument == "-" || !argument.hasPrefix("-")
                || Self.isNegativeNumber(argument)
            {
                if !optionsEnded && parsed.positionals.isEmpty && node.hasSubcommands {
                    guard let found = node.subcommandIndex(named: argument) else {
                        if node.arguments.isEmpty {
                            throw unknownCommand(argument, in: node, path: parsed.path)
                        }
                        parsed.positionals.append(argument)
                        continue
                    }
                    node = node.subcommandEntries[found].spec()
                    parsed.path.append(node.name)
                    continue
                }
                parsed.positionals.append(argument)
                continue
            }
            if argument == "--" {
                optionsEnded = true
                continue
            }
            if argument == "-h" || argument == "--help" {
                wantsHelp = true
                continue
            }
            if argument == "--version" {
                return Invocation(
                    globals: try globals(from: parsed), command: VersionCommand(),
                    path: [VersionCommand.name], scope: VersionCommand.spec.scope)
            }
            // An option of a group's default subcommand selects it (`prefs sync --watch`).
            if node.make == nil, parsed.positionals.isEmpty,
                let name = node.defaultSubcommand,
                let found = node.subcommandIndex(named: name),
                find(argument, in: node) == nil
            {
                let sub = node.subcommandEntries[found].spec()
                if find(argument, in: sub) != nil {
                    node = sub
                    parsed.path.append(sub.name)
                }
            }
            guard let option = find(argument, in: node) else {
                throw unknownOption(argument, in: node, path: parsed.path)
            }
            var inlineValue: String?
            if argument.hasPrefix("--"), let equals = argument.firstIndex(of: "=") {
                inlineValue = String(argument[argument.index(after: equals)...])
            }
            if option.takesValue {
                let value: String
                if let inlineValue {
                    value = inlineValue
                } else if index < arguments.count, !arguments[index].hasPrefix("--") {
                    value = arguments[index]
                    index += 1
                } else {
                    throw UsageError(
                        "Missing value for '\(option.synopsis)'", path: parsed.path)
                }
                if case .value = option.kind, parsed.hasValue(option.name),
                    !globalOptions.contains(where: { $0.name == option.name })
                {
                    throw UsageError(
                        "'--\(option.name)' was given more than once", path: parsed.path)
                }
                parsed.values.append((option.name, value))
            } else {
                if inlineValue != nil {
                    throw UsageError(
                        "'--\(option.name)' does not take a value", path: parsed.path)
                }
                parsed.setFlag(option.name)
            }
        }

        if wantsHelp {
            return Invocation(
                globals: try globals(from: parsed), command: HelpCommand(path: parsed.path),
                path: [HelpCommand.name], scope: HelpCommand.spec.scope)
        }
        if node.make == nil {
            if let name = node.defaultSubcommand, let sub = node.subcommand(named: name) {
                node = sub
                parsed.path.append(sub.name)
            } else if parsed.path.isEmpty {
                return Invocation(
                    globals: try globals(from: parsed), command: HelpCommand(path: []),
                    path: [HelpCommand.name], scope: HelpCommand.spec.scope)
            } else {
                throw UsageError("Missing subcommand", path: parsed.path)
            }
        }
        try checkPositionals(parsed, against: node)
        if let missing = node.options.first(where: {
            $0.isRequired && !parsed.hasValue($0.name)
        }) {
            throw UsageError("Missing expected option '\(missing.synopsis)'", path: parsed.path)
        }
        guard let make = node.make else {
            throw UsageError("Missing subcommand", path: parsed.path)
        }
        // A loop, not `map(\.name)`: a key path is instantiated at run time, on every run.
        for argument in node.arguments { parsed.argumentNames.append(argument.name) }
        return Invocation(
            globals: try globals(from: parsed), command: try make(parsed), path: parsed.path,
            scope: node.scope)
    }

    /// The option an argument names (`--name`, `--name=value` or `-n`) among the command's
    /// and the global ones.
    private func find(_ argument: String, in node: CommandSpec) -> OptionSpec? {
        if argument.hasPrefix("--") {
            var name = argument.dropFirst(2)
            if let equals = name.firstIndex(of: "=") { name = name[..<equals] }
            return node.options.first(where: { $0.name == name })
                ?? globalOptions.first(where: { $0.name == name })
        }
        let letters = Array(argument.dropFirst())
        guard letters.count == 1 else { return nil }
        return node.options.first(where: { $0.short == letters[0] })
            ?? globalOptions.first(where: { $0.short == letters[0] })
    }

    private func checkPositionals(_ parsed: ParsedArguments, against node: CommandSpec)
        throws(UsageError)
    {
        let required = node.arguments.filter { !$0.isOptional }.count
        if parsed.positionals.count < required {
            let missing = node.arguments[parsed.positionals.count]
            throw UsageError("Missing expected argument '<\(missing.name)>'", path: parsed.path)
        }
        if !node.arguments.contains(where: \.isRepeating),
            parsed.positionals.count > node.arguments.count
        {
            let extra = parsed.positionals[node.arguments.count]
            var message = "Unexpected argument '\(extra)'"
            if let hint = node.unexpectedArgumentHint {
                message += "; " + hint.replacing("ARGUMENT", with: extra)
            }
            throw UsageError(message, path: parsed.path)
        }
    }

    private func globals(from parsed: ParsedArguments) throws(UsageError) -> GlobalOptions {
        GlobalOptions(
            databasePath: parsed.value("db"),
            app: parsed.value("app"),
            suite: parsed.value("suite"),
            account: parsed.value("account"),
            allowsSharedFile: parsed.flag("allow-shared"),
            isJSON: parsed.flag("json"),
            isQuiet: parsed.flag("quiet"))
    }

    private func unknownCommand(_ name: String, in node: CommandSpec, path: [String]) -> UsageError
    {
        var message = "Unknown command '\(name)'"
        let names = node.subcommands.flatMap { [$0.name] + $0.aliases }
        // A verb of another group, typed without it (`prefs add` for `prefs bookmark add`).
        let groups = node.subcommands.filter { group in
            group.subcommands.contains { $0.name == name }
        }
        if !groups.isEmpty {
            let prefix = (["prefs"] + path).joined(separator: " ")
            message +=
                ". Did you mean "
                + groups.map { "'\(prefix) \($0.name) \(name)'" }.joined(separator: " or ") + "?"
        } else if let suggestion = Suggestion.nearest(to: name, among: names) {
            message += ". Did you mean '\(suggestion)'?"
        }
        return UsageError(message, path: path)
    }

    /// The command whose subcommand the path names last (nil for the root): found again
    /// when an error needs it, rather than kept while parsing, where an optional copy of
    /// a command's spec would cost every start-up its generic type's metadata.
    private func parent(of path: [String]) -> CommandSpec? {
        guard !path.isEmpty else { return nil }
        var node = root
        for name in path.dropLast() {
            guard let sub = node.subcommand(named: name) else { return nil }
            node = sub
        }
        return node
    }

    private func unknownOption(
        _ argument: String, in node: CommandSpec, path: [String]
    ) -> UsageError {
        let typed = String(argument.split(separator: "=", maxSplits: 1).first ?? "")
        // An option of another command of the same group, given to this one.
        if typed.hasPrefix("--"), let parent = parent(of: path),
            parent.subcommands.contains(where: { sibling in
                sibling.options.contains { "--" + $0.name == typed }
            })
        {
            return UsageError(
                "'\(typed)' does not apply to '\((["prefs"] + path).joined(separator: " "))'",
                path: path)
        }
        var message = "Unknown option '\(typed)'"
        let names = (node.options + globalOptions).map { "--" + $0.name }
        if let suggestion = Suggestion.nearest(to: typed, among: names) {
            message += ". Did you mean '\(suggestion)'?"
        }
        return UsageError(message, path: path)
    }

    static func isNegativeNumber(_ text: String) -> Bool {
        guard text.count > 1, text.hasPrefix("-") else { return false }
        return Double(text.dropFirst()) != nil
    }
}
