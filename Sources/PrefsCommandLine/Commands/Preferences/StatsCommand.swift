import PrefsKit
import PrefsPostgreSQL

/// `prefs stats KEY`: how a key's values are spread over the accounts of a server's store,
/// for a service role (``PreferenceStatistics``).
struct StatsCommand: RunnableCommand {
    static var name: String { "stats" }
    static let key = Argument<String>("key", help: "The key.", completesKeys: true)
    static let top = Option<Int>(
        "top", value: "n", help: "List at most n values (default: 10).", in: 0...10_000)
    static let threshold = Option<Int>(
        "threshold", value: "n",
        help: "Counts below n are shown as <n, values held by fewer accounts not at all"
            + " (default: 5).", in: 1...1_000_000_000)
    static let spec = CommandSpec(
        Self.self, abstract: "Show how a key's values are spread over a server's accounts.",
        discussion: """
            For a service role on a PostgreSQL store: the most common values and how many
            accounts hold each (for numbers the minimum, quartiles and maximum), and how
            many accounts have no value and use the default. Counts only; a count below
            the threshold is shown as <n, and a value held by fewer accounts is not shown.
            An account's own role is refused (exit 77).
            """,
        arguments: [key.spec], options: [top.spec, threshold.spec], scope: .preferences)

    var key: String
    var top = 10
    var threshold = 5

    func run(_ context: CommandContext) throws {
        guard AppDatabase.isConnectionString(context.databasePath) else {
            throw CommandFailure(
                "'prefs stats' counts across the accounts of a server's store"
                    + " (--db postgresql://...); a file holds one account",
                exitCode: CommandFailure.usage)
        }
        let statistics = try PreferenceStatistics.read(
            target: context.databasePath, options: context.serverOptions(), key: key,
            suite: context.suite, top: top, threshold: threshold)
        func json(_ count: OnboardingReport.Count?) -> JSONValue {
            switch count {
            case .exactly(let count)?: .integer(Int64(count))
            case .fewerThan(let threshold)?: .string("<\(threshold)")
            case nil: .integer(0)
            }
        }
        if context.globals.isJSON {
            let numbers: JSONValue =
                statistics.numbers.map { numbers in
                    .object([
                        ("min", .double(numbers.minimum)),
                        ("p25", .double(numbers.firstQuartile)),
                        ("median", .double(numbers.median)),
                        ("p75", .double(numbers.thirdQuartile)),
                        ("max", .double(numbers.maximum)), ("accounts", json(numbers.accounts)),
                    ])
                } ?? .null
            context.printJSON(
                .object([
                    ("key", .string(statistics.key)),
                    ("type", statistics.type.map { .string($0.rawValue) } ?? .null),
                    ("declaringAccounts", json(statistics.declaringAccounts)),
                    (
                        "values",
                        .array(
                            statistics.values.map {
                                .object([
                                    ("value", .string($0.value)), ("accounts", json($0.accounts)),
                                ])
                            })
                    ),
                    ("other", json(statistics.other)), ("otherType", json(statistics.otherType)),
                    ("usingDefault", json(statistics.usingDefault)), ("numbers", numbers),
                    ("threshold", .integer(Int64(statistics.threshold))),
                ]))
            return
        }
        func text(_ count: OnboardingReport.Count?) -> String { count?.description ?? "0" }
        var lines = "\(ValueText.listed(key)): \(statistics.type?.rawValue ?? "no value stored")"
        if let declaring = statistics.declaringAccounts {
            lines += ", declared by \(declaring) accounts"
        }
        lines += "\n"
        for value in statistics.values {
            lines += "  \(ValueText.listed(value.value)): \(value.accounts)\n"
        }
        if let numbers = statistics.numbers {
            // A whole number as one ("11", not "11.0"): an int key's quartiles are mostly whole.
            func shown(_ number: Double) -> String {
                number.rounded() == number && abs(number) < 1e15
                    ? String(Int64(number)) : "\(number)"
            }
            lines +=
                "  min \(shown(numbers.minimum)), p25 \(shown(numbers.firstQuartile)),"
                + " median \(shown(numbers.median)), p75 \(shown(numbers.thirdQuartile)),"
                + " max \(shown(numbers.maximum)) (\(numbers.accounts) accounts)\n"
        }
        if let other = statistics.other { lines += "  other values: \(other)\n" }
        if let otherType = statistics.otherType { lines += "  of another type: \(otherType)\n" }
        lines += "  no value (the default): \(text(statistics.usingDefault))\n"
        context.console.print(lines)
    }
}

extension StatsCommand {
    init(parsing parsed: ParsedArguments) throws(UsageError) {
        self.init(
            key: try parsed[Self.key], top: try parsed[Self.top] ?? 10,
            threshold: try parsed[Self.threshold] ?? 5)
    }
}
