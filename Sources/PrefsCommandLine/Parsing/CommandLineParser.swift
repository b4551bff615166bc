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
                    guard let sub = node.subcommand(named: argument) else {
                        if node.arguments.isEmpty {
                            throw unknownCommand(argument, in: node, path: parsed.path)
                        }
                        parsed.positionals.append(argument)
                        continue
                    }
                    node = sub
                    parsed.path.append(sub.name)
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
                return Invocation(globals: try globals(from: parsed), command: .version)
            }
            let option: OptionSpec
            var inlineValue: String?
            if argument.hasPrefix("--") {
                var name = String(argument.dropFirst(2))
                if let equals = name.firstIndex(of: "=") {
                    inlineValue = String(name[name.index(after: equals)...])
                    name = String(name[..<equals])
                }
                guard let found = (node.options + globalOptions).first(where: { $0.name == name })
                else { throw unknownOption(argument, in: node, path: parsed.path) }
                option = found
            } else {
                let letters = Array(argument.dropFirst())
                guard letters.count == 1,
                    let found = (node.options + globalOptions).first(where: {
                        $0.short == letters[0]
                    })
                else { throw unknownOption(argument, in: node, path: parsed.path) }
                option = found
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
            return Invocation(globals: try globals(from: parsed), command: .help(path: parsed.path))
        }
        if node.build == nil {
            if let name = node.defaultSubcommand, let sub = node.subcommand(named: name) {
                node = sub
                parsed.path.append(sub.name)
            } else if parsed.path.isEmpty {
                return Invocation(globals: try globals(from: parsed), command: .help(path: []))
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
        guard let build = node.build else {
            throw UsageError("Missing subcommand", path: parsed.path)
        }
        let command: Command
        do {
            command = try build(parsed)
        } catch let error as UsageError {
            throw error
        } catch {
            throw UsageError("\(error)", path: parsed.path)
        }
        return Invocation(globals: try globals(from: parsed), command: command)
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

    private func unknownOption(_ argument: String, in node: CommandSpec, path: [String])
        -> UsageError
    {
        var message = "Unknown option '\(argument.split(separator: "=", maxSplits: 1).first ?? "")'"
        let names = (node.options + globalOptions).map { "--" + $0.name }
        let typed = String(argument.split(separator: "=", maxSplits: 1).first ?? "")
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
