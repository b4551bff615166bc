import PrefsKit

#if canImport(FoundationEssentials) && !PREFS_FULL_FOUNDATION
    import FoundationEssentials
#else
    import Foundation
#endif

extension CommandTable {
    /// The preference commands, in the order help lists them.
    static let preferenceCommands: [CommandSpec] = [
        getCommand, describeCommand, renameCommand, findCommand, setCommand, deleteCommand,
        listCommand, resetCommand, watchCommand, historyCommand, suitesCommand, declareCommand,
        exportCommand, importCommand,
    ]

    static let getCommand = CommandSpec(
        name: "get", abstract: "Print the value of a preference.",
        discussion: """
            Prints the stored value, else the declared default, else the --default given;
            exits 1 when there is none of them. With --raw, only the stored value, exactly as
            stored (JSON text unformatted; with --json, the version of its shape too), as it
            is whatever the app's current type makes of it.
            """,
        arguments: [
            ArgumentSpec(name: "key", help: "The preference key.", completesKeys: true)
        ],
        options: [
            OptionSpec(
                name: "default", kind: .value(name: "value"),
                help: "What to print when the key has no value and no declared default."),
            OptionSpec(
                name: "raw", kind: .flag,
                help: "Print the stored value as stored, without defaults."),
        ],
        build: { parsed in
            .get(
                key: parsed.positionals[0], fallback: parsed.value("default"),
                raw: parsed.flag("raw"))
        }
    )

    static let describeCommand = CommandSpec(
        name: "describe",
        abstract: "Show what is known of a key: declaration, stored value, last change.",
        discussion: """
            The declared type, default and description (prefs declare), the stored value and
            its type, and the last change in the history. Exits 1 when the key is neither
            declared, stored nor in the history.
            """,
        arguments: [
            ArgumentSpec(name: "key", help: "The preference key.", completesKeys: true)
        ],
        build: { parsed in .describe(key: parsed.positionals[0]) })

    static let renameCommand = CommandSpec(
        name: "rename", aliases: ["mv"], abstract: "Move a stored value to another key.",
        discussion: """
            In one transaction, recorded in the history as a set of NEW and a removal of OLD.
            A value already stored under NEW is kept unless --force is given.
            """,
        arguments: [
            ArgumentSpec(
                name: "old", help: "The key that holds the value.", completesKeys: true),
            ArgumentSpec(name: "new", help: "The key to move it to."),
        ],
        options: [
            OptionSpec(
                name: "force", short: "f", kind: .flag,
                help: "Replace a value stored under NEW.")
        ],
        build: { parsed in
            .rename(
                old: parsed.positionals[0], new: parsed.positionals[1],
                force: parsed.flag("force"))
        })

    static let findCommand = CommandSpec(
        name: "find", abstract: "List the stored preferences whose keys match a pattern.",
        discussion: """
            The pattern is a shell glob over the whole key (*, ?, [abc]), or with --regex a
            regular expression that matches anywhere in the key. Prints as list does; exits 1
            when no key matches.
            """,
        arguments: [
            ArgumentSpec(name: "pattern", help: "A glob, or a regular expression with --regex.")
        ],
        options: [
            OptionSpec(
                name: "regex", short: "E", kind: .flag,
                help: "Read the pattern as a regular expression."),
            nullOption(entries: "each entry, with a newline between key and value"),
        ],
        build: { parsed in
            .find(
                pattern: parsed.positionals[0], isRegex: parsed.flag("regex"),
                isNullSeparated: parsed.flag("null"))
        })

    static let setCommand = CommandSpec(
        name: "set", abstract: "Store the value of a preference.",
        discussion: """
            Without --type, the declared type of the key is used, else the type of the value
            already stored, else (a new key) the type is inferred: true/false is a bool, an
            integer an int, a decimal a double, anything else a string; text that would not
            read back the same (02134, +1, 1e5, 1.50) stays a string.
            Pass - as the value to read it from standard input.
            """,
        arguments: [
            ArgumentSpec(name: "key", help: "The preference key.", completesKeys: true),
            ArgumentSpec(name: "value", help: "The value, or - to read standard input."),
        ],
        options: [
            OptionSpec(
                name: "type", short: "t", kind: .value(name: "type"),
                help: "The value's type: \(typeList).",
                completions: typeNames)
        ],
        build: { parsed in
            .set(
                key: parsed.positionals[0], value: parsed.positionals[1],
                type: try parsed.choice("type", from: typeNames).flatMap(
                    PreferenceType.init(rawValue:)))
        })

    static let deleteCommand = CommandSpec(
        name: "delete", aliases: ["remove", "unset"],
        abstract: "Remove the stored value of a preference.",
        arguments: [
            ArgumentSpec(name: "key", help: "The preference key.", completesKeys: true)
        ],
        build: { parsed in .delete(key: parsed.positionals[0]) })

    static let listCommand = CommandSpec(
        name: "list", aliases: ["ls"], abstract: "List the stored preferences of the suite.",
        options: [
            OptionSpec(
                name: "all", short: "a", kind: .flag,
                help: "Include declared keys that have only a default."),
            OptionSpec(
                name: "names", kind: .flag,
                help: "Print the keys only, one per line (with --all, every declared key too)."),
            nullOption(entries: "each entry, with a newline between key and value"),
        ],
        build: { parsed in
            .list(
                includeDeclared: parsed.flag("all"), isNullSeparated: parsed.flag("null"),
                namesOnly: parsed.flag("names"))
        })

    static let resetCommand = CommandSpec(
        name: "reset", abstract: "Remove every stored preference of the suite.",
        discussion:
            "Declarations stay. Asks for confirmation on a terminal; needs --force otherwise.",
        options: [
            OptionSpec(
                name: "force", short: "f", kind: .flag, help: "Do not ask for confirmation.")
        ],
        unexpectedArgumentHint: "reset takes no key (it removes every preference of the suite);"
            + " to remove one key, use 'prefs delete ARGUMENT'",
        build: { parsed in .reset(force: parsed.flag("force")) })

    static let watchCommand = CommandSpec(
        name: "watch",
        abstract: "Print changes of preferences as they happen, from any process.",
        discussion: "Runs until interrupted. With --json, prints one JSON object per line.",
        arguments: [
            ArgumentSpec(
                name: "key", help: "Keys to watch (default: all of the suite).",
                isOptional: true, isRepeating: true, completesKeys: true)
        ],
        build: { parsed in .watch(keys: parsed.positionals) })

    static let historyCommand = CommandSpec(
        name: "history", abstract: "Show the recent changes of the suite or of one key.",
        arguments: [
            ArgumentSpec(
                name: "key", help: "Only the changes of this key.", isOptional: true,
                completesKeys: true)
        ],
        options: [
            OptionSpec(
                name: "limit", short: "n", kind: .value(name: "n"),
                help: "Show at most this many changes (default: 20).")
        ],
        build: { parsed in
            .history(
                key: parsed.positional(0),
                limit: try parsed.integer("limit", in: 1...Int.max) ?? 20)
        })

    static let suitesCommand = CommandSpec(
        name: "suites", abstract: "List the suites that hold preferences or declarations.",
        options: [nullOption(entries: "each suite name")],
        build: { parsed in .suites(isNullSeparated: parsed.flag("null")) })

    static let declareCommand = CommandSpec(
        name: "declare", abstract: "Declare a key's type, default and description.",
        discussion:
            "Declared keys show their default in 'get' and 'list --all', and 'set' refuses values of another type.",
        arguments: [
            ArgumentSpec(name: "key", help: "The preference key.", completesKeys: true)
        ],
        options: [
            OptionSpec(
                name: "type", short: "t", kind: .value(name: "type"),
                help: "The key's type: \(typeList).",
                completions: typeNames, isRequired: true),
            OptionSpec(
                name: "default", kind: .value(name: "value"),
                help: "The value read when none is stored."),
            OptionSpec(
                name: "description", kind: .value(name: "text"), help: "What the key is for."),
            OptionSpec(
                name: "device-local", kind: .flag,
                help: "Keep the key's values on this device when it syncs ('prefs sync')."),
        ],
        build: { parsed in
            guard let typeName = try parsed.choice("type", from: typeNames),
                let type = PreferenceType(rawValue: typeName)
            else {
                throw UsageError("Missing expected option '--type <type>'", path: parsed.path)
            }
            return .declare(
                key: parsed.positionals[0], type: type, defaultValue: parsed.value("default"),
                description: parsed.value("description"),
                isDeviceLocal: parsed.flag("device-local"))
        })

    static let exportCommand = CommandSpec(
        name: "export", abstract: "Write the suite's preferences as JSON or a property list.",
        arguments: [
            ArgumentSpec(
                name: "file", help: "The output file (default: standard output).",
                isOptional: true)
        ],
        options: [
            formatOption(help: "The format: json (default), plist (XML) or binary-plist.")
        ],
        build: { parsed in
            .export(
                format: try parsed.choice("format", from: formatNames).flatMap(
                    InterchangeFormat.init(rawValue:)) ?? .json,
                file: parsed.positional(0))
        })

    static let importCommand = CommandSpec(
        name: "import",
        abstract: "Read preferences from JSON or a property list, all or nothing.",
        discussion: "The format is detected from the content unless --format is given.",
        arguments: [
            ArgumentSpec(name: "file", help: "The input file, or - for standard input.")
        ],
        options: [
            formatOption(help: "The format: json, plist or binary-plist (default: detected)."),
            OptionSpec(
                name: "replace", kind: .flag,
                help: "Remove the suite's other preferences first."),
            OptionSpec(
                name: "force", short: "f", kind: .flag, help: "Do not ask before replacing."),
        ],
        build: { parsed in
            .importPreferences(
                format: try parsed.choice("format", from: formatNames).flatMap(
                    InterchangeFormat.init(rawValue:)),
                file: parsed.positionals[0], replace: parsed.flag("replace"),
                force: parsed.flag("force"))
        })

    static let formatNames = InterchangeFormat.allCases.map(\.rawValue)

    static func formatOption(help: String) -> OptionSpec {
        OptionSpec(
            name: "format", kind: .value(name: "format"), help: help, completions: formatNames)
    }
}
