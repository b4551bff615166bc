import Foundation
import PrefsKit
import PrefsPostgreSQL
import PrefsSync
import PrefsTestSupport
import Synchronization
import TestSupport
import Testing

/// `OnboardingReport` on a real server: accounts whose walkthroughs were finished, skipped
/// on each page, stopped on each page, never started, set by an old app, and written by a
/// device through sync, counted against what the test wrote; the threshold; and who may
/// not see it. On a database owned by the superuser, and by a plain owner (no superuser,
/// which row-level security binds).
@Suite(.serialized) struct OnboardingReportTests {
    enum Owner: String, CaseIterable, CustomTestStringConvertible {
        case superuser, plain
        var testDescription: String { rawValue }
    }

    let server: PostgresServer
    let folder: TemporaryFolder

    init() throws {
        server = try PostgresServer.start()
        folder = try TemporaryFolder()
    }

    /// A store of the walkthroughs below; returns its database's name.
    ///
    /// finished 7 (one by `hasViewedWalkthrough` alone), skipped on page 1 (from 0): 5,
    /// skipped on page 2: 3 (one by a device, through sync), stopped on page 1: 5, stopped
    /// on page 2: 6, stopped on page 3 (the last, where there is no Skip): 1, never
    /// started: 5.
    func store(owner: Owner) throws -> String {
        // Made once per owner for the whole run: the tests only read it, and a store of 35
        // accounts costs the shared server a database and dozens of connections.
        try Self.stores.withLock { stores in
            if let made = stores[owner] { return try made.get() }
            let made = Result { try makeStore(owner: owner) }
            stores[owner] = made
            return try made.get()
        }
    }

    static let stores = Mutex<[Owner: Result<String, any Error>]>([:])

    func makeStore(owner: Owner) throws -> String {
        var database = try server.makePrefsDatabase(roles: [
            ("onboarding_app", "prefs_service"), ("onboarding_alice", "prefs_account"),
            ("onboarding_device", "prefs_account"),
        ])
        if owner == .plain {
            database = try server.makeDatabaseOfPlainOwner(prefix: "t_report_")
            _ = try AppDatabase.postgreSQL(server.target(database: database, user: "plain_owner"))
        }
        func account(_ name: String, _ body: (PreferenceStore, SelectionStore) throws -> Void)
            throws
        {
            let opened = try server.open(database, as: "onboarding_app", account: name)
            try body(PreferenceStore(database: opened), SelectionStore(database: opened))
        }
        func walkthrough(_ name: String, _ body: (Walkthrough) throws -> Void) throws {
            try account(name) { preferences, selections in
                try body(Walkthrough(preferences: preferences, selections: selections))
            }
        }
        for index in 0..<6 {
            try walkthrough("finished\(index)") { for _ in 0..<3 { try $0.next() } }
        }
        try account("old") { preferences, _ in
            try preferences.set(true, for: Walkthrough.hasViewedWalkthroughKey)
        }
        for index in 0..<5 { try walkthrough("skipped0-\(index)") { try $0.skip() } }
        for index in 0..<2 {
            try walkthrough("skipped1-\(index)") {
                try $0.next()
                try $0.skip()
            }
        }
        for index in 0..<5 { try walkthrough("stopped0-\(index)") { _ in } }
        for index in 0..<6 { try walkthrough("stopped1-\(index)") { try $0.next() } }
        try walkthrough("stopped2") {
            try $0.next()
            try $0.next()
        }
        for index in 0..<5 {
            try account("never\(index)") { preferences, _ in
                try preferences.setValue(.string("dark"), forKey: "theme")
            }
        }
        // A device of its own account skips on page 2 before its first sync.
        let device = try AppDatabase(path: folder.path("device-\(owner).sqlite"))
        let onDevice = try Walkthrough(
            preferences: PreferenceStore(database: device),
            selections: SelectionStore(database: device))
        try onDevice.next()
        try onDevice.skip()
        let sync = try DeviceSync(
            database: device, hub: server.target(database: database, user: "onboarding_device"))
        try sync.sync()
        return database
    }

    func read(_ database: String, user: String = "onboarding_app", threshold: Int = 5) throws
        -> OnboardingReport
    {
        try OnboardingReport.read(
            target: server.target(database: database, user: user), threshold: threshold)
    }

    @Test(arguments: Owner.allCases)
    func theCountsAreWhatTheAccountsWrote(owner: Owner) throws {
        let database = try store(owner: owner)
        let report = try read(database)
        #expect(report.groups.count == 1)
        let all = try #require(report.groups.first)
        #expect(all.week == nil)
        #expect(all.finished == .exactly(7))
        #expect(all.skipped == [0: .exactly(5), 1: .fewerThan(5)])
        #expect(all.stopped == [0: .exactly(5), 1: .exactly(6), 2: .fewerThan(5)])
        // The store's own first open, and the plain owner's, wrote nothing of onboarding.
        #expect(all.neverStarted == .exactly(5) || all.neverStarted == .exactly(6))
        #expect(all.skippedOnUnknownPage == nil)
        let exact = try #require(try read(database, threshold: 1).groups.first)
        #expect(exact.skipped[1] == .exactly(3))
        #expect(
            try #require(try read(database, threshold: 7).groups.first).finished == .exactly(7))
        #expect(
            try #require(try read(database, threshold: 8).groups.first).finished
                == .fewerThan(8))
    }

    /// Through PgBouncer in transaction pooling: the same counts, and the pooled server
    /// connection is left with nothing of the report (the next client reads one account).
    @Test(.enabled(if: PgBouncer.isInstalled, "PgBouncer is not installed"))
    func throughAPoolerTheCountsAreTheSame() throws {
        let database = try store(owner: .plain)
        // The pooler lets in the users it lists.
        try server.makeLoginRoles([("service", "prefs_service"), ("alice", "prefs_account")])
        let pooler = try PgBouncer.start()
        var options = PostgreSQLOptions()
        options.isBehindTransactionPooler = true
        let report = try OnboardingReport.read(
            target: pooler.target(database: database, user: "service"), options: options)
        #expect(report.groups.first?.finished == .exactly(7))
        #expect(report.groups.first?.stopped[1] == .exactly(6))
        let alice = PreferenceStore(
            database: try AppDatabase.postgreSQL(
                pooler.target(database: database, user: "alice"), options: options))
        #expect(try alice.storedEntries().isEmpty)
    }

    /// By week of the accounts' first change (all of them this week), and since a time
    /// after every first change (none).
    @Test func byWeekAndSince() throws {
        let database = try store(owner: .superuser)
        let target = server.target(database: database, user: "onboarding_app")
        let weekly = try OnboardingReport.read(target: target, byWeek: true)
        var calendar = Calendar(identifier: .iso8601)
        calendar.timeZone = TimeZone(identifier: "UTC") ?? calendar.timeZone
        let now = calendar.dateComponents([.yearForWeekOfYear, .weekOfYear], from: Date())
        let week = String(
            format: "%04d-W%02d", now.yearForWeekOfYear ?? 0, now.weekOfYear ?? 0)
        #expect(weekly.groups.map(\.week) == [week])
        #expect(weekly.groups.first?.finished == .exactly(7))
        let later = try OnboardingReport.read(
            target: target, since: Date().addingTimeInterval(3600))
        #expect(later.groups.count == 1)
        #expect(later.groups.first?.finished == nil)
        #expect(later.groups.first?.neverStarted == nil)
        #expect(try OnboardingReport.read(target: target, since: Date(), byWeek: true).groups == [])
    }

    /// An account's own login role: refused by the library (permission denied, which the
    /// command line makes exit 77) and by the server when it calls the function itself;
    /// row-level security stays forced; no client can write the report's marker table.
    @Test func anAccountsRoleIsRefusedAndRowLevelSecurityStaysForced() throws {
        let database = try store(owner: .superuser)
        #expect {
            try read(database, user: "onboarding_alice")
        } throws: { error in
            guard case .permissionDenied? = (error as? DatabaseError)?.kind else { return false }
            return true
        }
        let direct = try server.psql(
            "SELECT * FROM prefs_onboarding_report('standard', NULL, false, 1)",
            database: database, user: "onboarding_alice")
        #expect(direct.status != 0)
        #expect(direct.stderr.contains("permission denied"), "\(direct.stderr)")
        let forced = try server.psql(
            """
            SELECT string_agg(relname || '=' || relforcerowsecurity, ',' ORDER BY relname)
            FROM pg_class WHERE relname IN ('preference', 'selection', 'prefs_account_state')
            """, database: database)
        #expect(
            forced.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
                == "preference=true,prefs_account_state=true,selection=true")
        for user in ["onboarding_alice", "onboarding_app"] {
            let marker = try server.psql(
                "INSERT INTO prefs_reporting VALUES (txid_current())", database: database,
                user: user)
            #expect(marker.status != 0, "\(user)")
        }
    }

    /// The owner reads every account's rows only inside the report: in the same
    /// transaction, right after it, the owner's own queries see one account again.
    @Test func aReportLeavesNothingOpenInItsTransaction() throws {
        let database = try store(owner: .plain)
        let after = try server.psql(
            """
            BEGIN;
            SELECT count(*) FROM prefs_onboarding_report('standard', NULL, false, 1);
            SELECT 'accounts seen: ' || count(DISTINCT account) FROM preference;
            COMMIT;
            """, database: database, user: "plain_owner")
        #expect(after.status == 0, "\(after.stderr)")
        #expect(after.stdout.contains("accounts seen: 0"), "\(after.stdout)")
    }

    // MARK: - Statistics of a key

    /// theme: dark 6, light 5, sepia 2, one as a number; volume 1...10; four accounts
    /// with neither (one of them the device's, one the store's first open).
    func statisticsStore() throws -> String {
        let database = try server.makePrefsDatabase(roles: [
            ("onboarding_app", "prefs_service"), ("onboarding_alice", "prefs_account"),
        ])
        func account(_ name: String, _ body: (PreferenceStore) throws -> Void) throws {
            try body(
                PreferenceStore(
                    database: try server.open(database, as: "onboarding_app", account: name)))
        }
        let themes =
            Array(repeating: "dark", count: 6) + Array(repeating: "light", count: 5)
            + ["sepia", "sepia"]
        for (index, theme) in themes.enumerated() {
            try account("theme\(index)") { store in
                if index == 0 { try store.declare(Prefs.Key("theme", default: "light")) }
                try store.setValue(.string(theme), forKey: "theme")
            }
        }
        try account("numeric") { try $0.setValue(.int(3), forKey: "theme") }
        for volume in 1...10 {
            try account("volume\(volume)") { try $0.setValue(.int(volume), forKey: "volume") }
        }
        for index in 0..<3 {
            try account("neither\(index)") { try $0.setValue(.bool(true), forKey: "other") }
        }
        return database
    }

    @Test func theStatisticsOfAKeyAreWhatTheAccountsWrote() throws {
        let database = try statisticsStore()
        let target = server.target(database: database, user: "onboarding_app")
        let theme = try PreferenceStatistics.read(target: target, key: "theme")
        #expect(theme.type == .string)
        #expect(theme.declaringAccounts == .fewerThan(5))
        #expect(
            theme.values == [
                .init(value: "dark", accounts: .exactly(6)),
                .init(value: "light", accounts: .exactly(5)),
            ])
        // sepia (2 accounts) is not shown: it is counted in "other", itself below 5.
        #expect(theme.other == .fewerThan(5))
        #expect(theme.otherType == .fewerThan(5))
        #expect(theme.numbers == nil)
        // volume's 10 and neither's 3 accounts have no theme.
        #expect(theme.usingDefault == .exactly(13) || theme.usingDefault == .exactly(14))
        let exact = try PreferenceStatistics.read(
            target: target, key: "theme", top: 1, threshold: 1)
        #expect(exact.values == [.init(value: "dark", accounts: .exactly(6))])
        #expect(exact.other == .exactly(7))
        #expect(exact.otherType == .exactly(1))

        let volume = try PreferenceStatistics.read(target: target, key: "volume")
        #expect(volume.type == .int)
        #expect(volume.declaringAccounts == nil)
        #expect(volume.values == [])
        let numbers = try #require(volume.numbers)
        #expect(numbers.minimum == 1 && numbers.maximum == 10)
        #expect(numbers.firstQuartile == 3.25 && numbers.median == 5.5)
        #expect(numbers.thirdQuartile == 7.75)
        #expect(numbers.accounts == .exactly(10))
        // Below the threshold, a number's spread is not given (its minimum could be one
        // account's).
        #expect(
            try PreferenceStatistics.read(target: target, key: "volume", threshold: 11).numbers
                == nil)

        #expect {
            try PreferenceStatistics.read(
                target: server.target(database: database, user: "onboarding_alice"), key: "theme")
        } throws: { error in
            guard case .permissionDenied? = (error as? DatabaseError)?.kind else { return false }
            return true
        }
    }
}
