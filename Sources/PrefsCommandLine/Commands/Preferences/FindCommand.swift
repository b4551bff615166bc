import PrefsKit

#if canImport(FoundationEssentials) && !PREFS_FULL_FOUNDATION
    import FoundationEssentials
#else
    import Foundation
#endif

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// `prefs find PATTERN`: stored preferences whose keys match a glob or a regular expression.
struct FindCommand: RunnableCommand {
    static var name: String { "find" }
    static let pattern = Argument<String>(
        "pattern", help: "A glob, or a regular expression with --regex.")
    static let regex = Flag("regex", short: "E", help: "Read the pattern as a regular expression.")
    static let null = Flag.null(entries: "each entry, with a newline between key and value")
    static let spec = CommandSpec(
        Self.self, abstract: "List the stored preferences whose keys match a pattern.",
        discussion: """
            The pattern is a shell glob over the whole key (*, ?, [abc]), or with --regex a
            regular expression that matches anywhere in the key. Prints as list does; exits 1
            when no key matches.
            """,
        arguments: [pattern.spec], options: [regex.spec, null.spec], scope: .preferences)

    var pattern: String
    var isRegex = false
    var isNullSeparated = false

    func run(_ context: CommandContext) throws {
        let matches: (String) -> Bool
        if isRegex {
            let regex: Regex<AnyRegexOutput>
            do {
                regex = try Regex(pattern)
            } catch {
                throw CommandFailure(
                    "'\(ValueText.shown(pattern))' is not a valid regular expression",
                    exitCode: CommandFailure.usage)
            }
            matches = { $0.contains(regex) }
        } else {
            matches = { fnmatch(pattern, $0, 0) == 0 }
        }
        let store = try context.openForReading().map {
            PreferenceStore(database: $0, suite: context.suite)
        }
        // Stored entries, in byte order: keys Swift calls equal are still two keys.
        let rows = try (store?.storedEntries() ?? []).filter { matches($0.key) }
        guard !rows.isEmpty else {
            throw CommandFailure(
                "No key of suite '\(context.suite)' matches '\(ValueText.shown(pattern))'",
                exitCode: CommandFailure.notFound)
        }
        if context.globals.isJSON {
            context.printJSON(
                .array(
                    rows.map {
                        JSONShapes.preference(
                            suite: context.suite, key: $0.key, value: $0.value, isDefault: false)
                    }))
        } else {
            context.console.print(
                rows.map {
                    context.entry(key: $0.key, value: $0.value, isNullSeparated: isNullSeparated)
                }
                .joined())
        }
    }
}

extension FindCommand {
    init(parsing parsed: ParsedArguments) throws(UsageError) {
        self.init(
            pattern: try parsed[Self.pattern], isRegex: parsed[Self.regex],
            isNullSeparated: parsed[Self.null])
    }
}
