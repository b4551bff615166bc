import Testing

@testable import PrefsCommandLine

@Suite struct CommandLineParserTests {
    func parse(_ arguments: [String]) throws -> Invocation {
        try CommandTable.parser.parse(arguments)
    }

    /// The command the arguments parse to, when it is of that type.
    func command<Command: RunnableCommand>(_ arguments: [String], as type: Command.Type) throws
        -> Command?
    {
        try parse(arguments).command as? Command
    }

    func usageError(_ arguments: [String]) -> String? {
        do {
            _ = try CommandTable.parser.parse(arguments)
            return nil
        } catch {
            return CommandTable.helpFormatter.errorText(error)
        }
    }

    @Test func getWithGlobalsBeforeAndAfter() throws {
        let before = try parse(["--db", "/tmp/a.sqlite", "--json", "get", "hasViewedWalkthrough"])
        let after = try parse(["get", "hasViewedWalkthrough", "--db=/tmp/a.sqlite", "--json"])
        #expect(before.globals == after.globals)
        #expect(before.command as? GetCommand == after.command as? GetCommand)
        #expect(before.command as? GetCommand == GetCommand(key: "hasViewedWalkthrough"))
        #expect(before.globals == GlobalOptions(databasePath: "/tmp/a.sqlite", isJSON: true))
    }

    @Test func setWithTypeAndNegativeNumberAndDoubleDash() throws {
        #expect(
            try command(["set", "n", "-5"], as: SetCommand.self)
                == SetCommand(key: "n", value: "-5"))
        #expect(
            try command(["set", "-t", "int", "n", "7"], as: SetCommand.self)
                == SetCommand(key: "n", value: "7", type: .int))
        #expect(
            try command(["set", "--", "--odd", "--value"], as: SetCommand.self)
                == SetCommand(key: "--odd", value: "--value"))
        #expect(
            try command(["set", "k", "-"], as: SetCommand.self) == SetCommand(key: "k", value: "-"))
    }

    @Test func aliasesResolve() throws {
        #expect(try command(["remove", "k"], as: DeleteCommand.self) == DeleteCommand(key: "k"))
        #expect(
            try command(["ls", "-a"], as: ListCommand.self) == ListCommand(includeDeclared: true))
    }

    @Test func helpAndVersionAnywhere() throws {
        #expect(try command([], as: HelpCommand.self) == HelpCommand(path: []))
        #expect(try command(["set", "--help"], as: HelpCommand.self) == HelpCommand(path: ["set"]))
        #expect(try command(["help", "set"], as: HelpCommand.self) == HelpCommand(path: ["set"]))
        #expect(try command(["get", "-h"], as: HelpCommand.self) == HelpCommand(path: ["get"]))
        #expect(try command(["get", "--version"], as: VersionCommand.self) == VersionCommand())
    }

    @Test func unknownCommandSuggestsTheNearest() {
        #expect(
            usageError(["gte", "x"]) == """
                Error: Unknown command 'gte'. Did you mean 'get'?
                Usage: prefs <subcommand>
                  See 'prefs --help' for more information.

                """)
        #expect(
            usageError(["delte", "x"])?.hasPrefix(
                "Error: Unknown command 'delte'. Did you mean 'delete'?") == true)
    }

    @Test func unknownOptionSuggestsTheNearest() {
        #expect(
            usageError(["get", "k", "--jsno"]) == """
                Error: Unknown option '--jsno'. Did you mean '--json'?
                Usage: prefs get <key> [--default <value>] [--raw]
                  See 'prefs get --help' for more information.

                """)
        #expect(
            usageError(["get", "k", "--zzzzzz"])?.hasPrefix("Error: Unknown option '--zzzzzz'\n")
                == true)
    }

    @Test func missingAndExtraArguments() {
        #expect(
            usageError(["get"])?.hasPrefix(
                "Error: Missing expected argument '<key>'\nUsage: prefs get <key> [--default <value>] [--raw]\n"
            ) == true)
        #expect(
            usageError(["get", "a", "b"])?.hasPrefix("Error: Unexpected argument 'b'\n") == true)
        #expect(
            usageError(["set", "k", "v", "--type"])?.hasPrefix(
                "Error: Missing value for '--type <type>'\n") == true)
        #expect(
            usageError(["set", "k", "v", "--type", "color"])?.hasPrefix(
                "Error: Invalid value 'color' for '--type': expected one of 'bool', 'int', 'double', 'float', 'string', 'url', 'date', 'data', 'array', 'dictionary', 'json'\n"
            ) == true)
        #expect(
            usageError(["history", "--limit", "0"])?.hasPrefix(
                "Error: Invalid value '0' for '--limit': expected a positive integer\n") == true)
        #expect(
            usageError(["list", "--all=yes"])?.hasPrefix("Error: '--all' does not take a value\n")
                == true)
        #expect(
            usageError(["declare", "k"]) == """
                Error: Missing expected option '--type <type>'
                Usage: prefs declare <key> --type <type> [--default <value>] [--description <text>] [--device-local]
                  See 'prefs declare --help' for more information.

                """)
    }

    @Test func requiredOptionsShowWithoutBrackets() {
        let formatter = CommandTable.helpFormatter
        #expect(
            formatter.usageLine(for: ["bookmark", "add"])
                == "prefs bookmark add <kind> <item-id> --title <title> "
                + "[--url <url>] [--category <category>] [--folder <path>] [--tag <tag> ...] [--note <text>]"
        )
        #expect(
            formatter.usageLine(for: ["bookmark", "move"])
                == "prefs bookmark move <kind-or-id> [<item-id>] --to <position>")
        #expect(
            usageError(["bookmark", "move", "3", "--to=-1"])?.hasPrefix(
                "Error: Invalid value '-1' for '--to': expected a non-negative integer\n") == true)
    }

    @Test func helpTextHasTheStandardSections() {
        let help = CommandTable.helpFormatter.help(for: ["set"])
        #expect(help.hasPrefix("OVERVIEW: Store the value of a preference.\n"))
        #expect(help.contains("\nUSAGE: prefs set <key> <value> [--type <type>]\n"))
        #expect(help.contains("\nARGUMENTS:\n  <key>                   The preference key.\n"))
        #expect(help.contains("\nOPTIONS:\n  -t, --type <type>"))
        #expect(help.contains("  -h, --help              Show help information.\n"))
    }
}
