internal import PostgresCore
import PrefsKit

#if canImport(FoundationEssentials) && !PREFS_FULL_FOUNDATION
    import FoundationEssentials
#else
    import Foundation
#endif

/// How one key's values are spread over the accounts of a server's store: the most common
/// values and how many accounts hold each, or for numbers the minimum, quartiles and
/// maximum; how many accounts have no value and use the default. For a service role only;
/// it holds counts, never an account's name. A count below the threshold is only said to be
/// below it, and a value held by fewer accounts than the threshold is not shown (it is
/// counted in ``other``), since a rare value could name someone.
///
/// ```swift
/// let dark = try PreferenceStatistics.read(
///     target: "postgresql:///prefs?user=app", key: "darkMode")
/// print(dark.values, dark.usingDefault)
/// ```
public struct PreferenceStatistics: Sendable, Hashable {
    /// A value as stored (`true`, `42`, `dark`), and how many accounts hold it.
    public struct Value: Sendable, Hashable {
        /// The value's text as the store keeps it.
        public var value: String
        /// How many accounts hold it.
        public var accounts: OnboardingReport.Count

        /// A value and its count.
        public init(value: String, accounts: OnboardingReport.Count) {
            self.value = value
            self.accounts = accounts
        }
    }

    /// The minimum, quartiles and maximum of a number key's values.
    public struct Numbers: Sendable, Hashable {
        /// The least value.
        public var minimum: Double
        /// The first quartile (interpolated).
        public var firstQuartile: Double
        /// The median (interpolated).
        public var median: Double
        /// The third quartile (interpolated).
        public var thirdQuartile: Double
        /// The greatest value.
        public var maximum: Double
        /// How many accounts have a value.
        public var accounts: OnboardingReport.Count
    }

    /// The key.
    public var key: String
    /// The type the key is declared with by most of the accounts that declare it, or the
    /// most common type stored when none does; nil when nothing is known of it.
    public var type: PreferenceType?
    /// How many accounts declare the key with that type; nil when none does.
    public var declaringAccounts: OnboardingReport.Count?
    /// The most common values of that type, most common first (not for numbers).
    public var values: [Value]
    /// Accounts with a value of that type that is not in ``values``.
    public var other: OnboardingReport.Count?
    /// Accounts with a value of another type.
    public var otherType: OnboardingReport.Count?
    /// Accounts with no value: the default applies.
    public var usingDefault: OnboardingReport.Count?
    /// For a number key held by at least as many accounts as the threshold.
    public var numbers: Numbers?
    /// The threshold counts were compared with.
    public var threshold: Int

    /// Reads the statistics of a key from a server's store, as a service role.
    ///
    /// - Parameters:
    ///   - target: The connection string of a service role (a member of `prefs_service`).
    ///   - options: How the server is reached; its account is not used.
    ///   - key: The key.
    ///   - suite: Its suite.
    ///   - top: The most values to list.
    ///   - threshold: Counts below it are given as ``OnboardingReport/Count/fewerThan(_:)``
    ///     and values held by fewer accounts are not listed; at least 1.
    /// - Throws: ``PrefsKit/DatabaseError/permissionDenied(path:detail:)`` for a role that
    ///   is not a service role; ``PrefsKit/DatabaseError/invalidConnectionOption(path:detail:)``
    ///   for a threshold below 1 or a negative `top`; ``PrefsKit/DatabaseError`` for a server
    ///   that cannot be reached.
    public static func read(
        target: String, options: PostgreSQLOptions = PostgreSQLOptions(), key: String,
        suite: String = PreferenceStore.standardSuite, top: Int = 10, threshold: Int = 5
    ) throws -> PreferenceStatistics {
        guard (1...Int(Int32.max)).contains(threshold), (0...Int(Int32.max)).contains(top) else {
            throw DatabaseError.invalidConnectionOption(
                path: PGConnection.redacted(target),
                detail: "the threshold must be from 1 and top from 0, both to 2147483647")
        }
        return try OnboardingReport.asServiceRole(target: target, options: options) {
            connection in
            let result = try connection.execute(
                "SELECT kind, value, accounts FROM prefs_preference_statistics($1, $2, $3, $4)",
                [suite, key, String(top), String(threshold)])
            var statistics = PreferenceStatistics(key: key, values: [], threshold: threshold)
            var numbers: [String: Double] = [:]
            var numberAccounts: OnboardingReport.Count?
            for row in 0..<result.rowCount {
                let value = result.text(row: row, column: 1)
                let count: OnboardingReport.Count =
                    result.integer(row: row, column: 2).map { .exactly(Int($0)) }
                    ?? .fewerThan(threshold)
                let isZero = count == .exactly(0)
                switch result.text(row: row, column: 0) {
                case "declared":
                    statistics.type = value.flatMap(PreferenceType.init(rawValue:))
                    statistics.declaringAccounts = isZero ? nil : count
                case "value":
                    if let value { statistics.values.append(Value(value: value, accounts: count)) }
                case "other": statistics.other = isZero ? nil : count
                case "other type": statistics.otherType = isZero ? nil : count
                case "default": statistics.usingDefault = isZero ? nil : count
                case let kind?:
                    numbers[kind] = value.flatMap(Double.init)
                    numberAccounts = count
                case nil: break
                }
            }
            if let minimum = numbers["min"], let first = numbers["p25"],
                let median = numbers["median"], let third = numbers["p75"],
                let maximum = numbers["max"], let numberAccounts
            {
                statistics.numbers = Numbers(
                    minimum: minimum, firstQuartile: first, median: median,
                    thirdQuartile: third, maximum: maximum, accounts: numberAccounts)
            }
            return statistics
        }
    }
}
