import Foundation
import PrefsSync
import TestSupport
import Testing

@testable import PrefsKit
@testable import PrefsPostgreSQL

/// One malformed change, from a device with a bug, a hostile one or a row written into the
/// hub by hand, is refused alone: the hub refuses it when pushed and reports it, a device
/// skips it when pulled and records it, and nobody's round stops. The device's rules
/// (``SyncValidation``) and the hub's (`prefs_sync_problem`) are held to one corpus.
@Suite struct SyncRulesTests {
    let server: PostgresServer
    let hubDatabase: String
    let hub: String
    let folder: TemporaryFolder

    init() throws {
        server = try PostgresServer.start()
        hubDatabase = try server.makeDatabase()
        hub = server.target(database: hubDatabase)
        folder = try TemporaryFolder()
    }

    static let clock = "001764600000000-000001-0a1b2c3d4e5f6071"

    static func preference(
        _ key: String, _ value: PreferenceValue?, suite: String = "standard",
        present: Bool = true, clock: String = clock
    ) -> SyncChange {
        SyncChange(
            entity: .preference, ident: SyncIdent.make([suite, key]), field: "value",
            clock: clock, present: present, value: value)
    }

    static func bookmark(
        _ kind: String = "movie", _ itemID: String = "m1", field: String,
        _ value: PreferenceValue?, present: Bool = true, ident: String? = nil
    ) -> SyncChange {
        SyncChange(
            entity: .bookmark, ident: ident ?? SyncIdent.make([kind, itemID]), field: field,
            clock: clock, present: present, value: value)
    }

    /// Changes every side must take.
    static let wellFormed: [SyncChange] = [
        preference("launchCount", .int(3)),
        preference("volume", .double(0.25)),
        preference("ratio", .float(-1.5)),
        preference("flag", .bool(true)),
        preference("name", .string("caf\u{E9}\ttab")),
        preference("home", .url(URL(string: "https://example.com/a?b=c")!)),
        preference("seen", .date(Date(timeIntervalSinceReferenceDate: 12.5))),
        preference("blob", .data(Data([0, 1, 2, 255]))),
        preference("list", .array([.int(1), .string("two")])),
        preference("map", .dictionary(["a": .bool(false)])),
        preference("doc", .json("{\"a\": [1, 2]}")),
        preference("gone", nil, suite: "group.example", present: false),
        preference("\u{212B}", .int(1)),
        bookmark(field: "exists", nil),
        bookmark(field: "exists", nil, present: false),
        bookmark(field: "title", .string("")),
        bookmark(field: "title", .string("Heat")),
        bookmark(field: "url", .string("https://example.com/")),
        bookmark(field: "category", nil),
        bookmark(field: "note", .string("line one\nline two")),
        bookmark(field: "position", .int(0)),
        bookmark(field: "folder", .string("")),
        bookmark(field: "folder", .string(SyncIdent.make(["Dev", "Swift"]))),
        SyncChange(
            entity: .tag, ident: SyncIdent.make(["movie", "m1", "crime"]), field: "present",
            clock: clock, present: true, value: nil),
    ]

    /// Changes every side must refuse, each for one broken rule.
    static let malformed: [(String, SyncChange)] = [
        ("an empty clock", preference("k", .int(1), clock: "")),
        ("a clock with words", preference("k", .int(1), clock: "soon")),
        ("a seven-digit counter", preference("k", .int(1), clock: "001764600000000-1000000-ab")),
        ("a short millisecond part", preference("k", .int(1), clock: "1764600000000-000001-ab")),
        ("an uppercase device", preference("k", .int(1), clock: "001764600000000-000001-AB")),
        ("no device", preference("k", .int(1), clock: "001764600000000-000001-")),
        (
            "a device of 65 characters",
            preference(
                "k", .int(1), clock: "001764600000000-000001-" + String(repeating: "a", count: 65))
        ),
        ("a key with a newline", preference("two\nlines", .int(1))),
        ("an empty key", preference("", .int(1))),
        ("an empty suite", preference("k", .int(1), suite: "")),
        ("a key of 1,025 bytes", preference(String(repeating: "k", count: 1025), .int(1))),
        ("a set without a value", preference("k", nil)),
        ("a removal with a value", preference("k", .int(1), present: false)),
        ("JSON that is not JSON", preference("k", .json("{nope"))),
        ("a bookmark ident '.'", bookmark(field: "title", .string("x"), ident: ".")),
        ("lowercase hex", bookmark(field: "title", .string("x"), ident: "6d6f766965.6d31")),
        ("an odd hex digit count", bookmark(field: "title", .string("x"), ident: "6D6F7669.6D3")),
        ("bytes that are not UTF-8", bookmark(field: "title", .string("x"), ident: "C0AF.6D31")),
        ("an encoded surrogate", bookmark(field: "title", .string("x"), ident: "EDA080.6D31")),
        ("a NUL in a name", bookmark(field: "title", .string("x"), ident: "6D00.6D31")),
        ("a blank kind", bookmark(" ", "m1", field: "title", .string("x"))),
        ("an ideographic-space kind", bookmark("\u{3000}", "m1", field: "title", .string("x"))),
        (
            "a control character in an item ID",
            bookmark("movie", "m\u{1}", field: "title", .string("x"))
        ),
        ("a bookmark of three names", bookmark(field: "title", .string("x"), ident: "6D.6D.6D")),
        ("an unknown bookmark field", bookmark(field: "rating", .string("5"))),
        ("a negative position", bookmark(field: "position", .int(-1))),
        ("a position as text", bookmark(field: "position", .string("1"))),
        ("a title with a newline", bookmark(field: "title", .string("a\nb"))),
        ("a folder that is not hex", bookmark(field: "folder", .string("Dev"))),
        (
            "a folder with a blank name",
            bookmark(field: "folder", .string(SyncIdent.make(["Dev", " "])))
        ),
        ("'exists' with a value", bookmark(field: "exists", .string("yes"))),
        (
            "a tag with a value",
            SyncChange(
                entity: .tag, ident: SyncIdent.make(["movie", "m1", "crime"]), field: "present",
                clock: clock, present: true, value: .int(1))
        ),
        (
            "a tag of two names",
            SyncChange(
                entity: .tag, ident: SyncIdent.make(["movie", "m1"]), field: "present",
                clock: clock, present: true, value: nil)
        ),
    ]

    /// What the hub's function says of each change.
    private func hubProblems(_ changes: [SyncChange]) throws -> [String?] {
        func literal(_ text: String?) -> String {
            text.map { "'" + $0.replacingOccurrences(of: "'", with: "''") + "'" } ?? "NULL"
        }
        let rows = changes.enumerated().map { index, change in
            let columns = change.value?.postgresColumns
            return "(\(index), \(literal(change.entity.rawValue)), \(literal(change.ident)),"
                + " \(literal(change.field)), \(literal(change.clock)), \(change.present),"
                + " \(literal(change.value?.type.rawValue)), \(literal(columns?.value)),"
                + " \(literal(columns?.bytes))::bytea)"
        }
        let output = try server.psql(
            """
            SELECT n, coalesce(prefs_sync_problem(e, i, f, c, p, t, v, b), '-')
            FROM (VALUES \(rows.joined(separator: ",\n"))) AS x(n, e, i, f, c, p, t, v, b)
            ORDER BY n
            """, database: try migratedHub())
        #expect(output.status == 0, "\(output.stderr)")
        var problems = [String?](repeating: nil, count: changes.count)
        for line in output.stdout.split(separator: "\n") {
            let parts = line.split(separator: "|", maxSplits: 1)
            guard parts.count == 2, let index = Int(parts[0]) else { continue }
            problems[index] = parts[1] == "-" ? nil : String(parts[1])
        }
        return problems
    }

    /// The hub database with the schema in it (opening it migrates).
    private func migratedHub() throws -> String {
        _ = try AppDatabase.postgreSQL(hub, options: hubOptions("rules"))
        return hubDatabase
    }

    private func hubOptions(_ account: String) -> PostgreSQLOptions {
        var options = PostgreSQLOptions()
        options.account = account
        options.watchesForChanges = false
        return options
    }

    @Test func theDeviceAndTheHubAgreeOnEveryRule() throws {
        for change in Self.wellFormed {
            #expect(SyncValidation.problem(with: change) == nil, "\(change)")
        }
        for (name, change) in Self.malformed {
            #expect(SyncValidation.problem(with: change) != nil, "device took \(name)")
        }
        let hubSays = try hubProblems(Self.wellFormed + Self.malformed.map(\.1))
        for (index, change) in Self.wellFormed.enumerated() {
            #expect(hubSays[index] == nil, "hub refused \(change): \(hubSays[index] ?? "")")
        }
        for (offset, (name, _)) in Self.malformed.enumerated() {
            #expect(hubSays[Self.wellFormed.count + offset] != nil, "hub took \(name)")
        }
    }

    @Test func aMalformedPushIsRefusedAloneAndReported() throws {
        // The schema (and its group roles) first, then the account's login role.
        _ = try migratedHub()
        try server.makeLoginRoles([("mallory", "prefs_account")])
        let database = try AppDatabase.postgreSQL(hub, options: hubOptions("mallory"))
        let engine = try #require(database.state.withLock { $0.engine as? PostgreSQLEngine })
        let good = Self.preference("launchCount", .int(7))
        let bad = Self.malformed.map(\.1)
        let ahead = Self.preference(
            "later", .int(1),
            clock: HybridClock(
                milliseconds: Int64(Date().timeIntervalSince1970 * 1000) + 3_600_000, counter: 0,
                device: "0a1b2c3d4e5f6071"
            ).text)
        let outcome = try database.state.withLock { _ in
            try engine.push(bad + [good, ahead], device: "0a1b2c3d4e5f6071", cursor: 0)
        }
        #expect(outcome.accepted == 1)
        #expect(outcome.refused.count == bad.count)
        #expect(outcome.clockAhead.map(\.ident) == [ahead.ident])
        let pulled = try database.state.withLock { _ in try engine.pull(after: 0, limit: 100) }
        #expect(pulled.map(\.change.ident) == [good.ident])
        // Written by hand into the hub's table, with a number of its choosing (99, behind
        // every cursor to come): the account's own role may not write it at all.
        let byHand = try server.psql(
            """
            INSERT INTO sync_change (account, entity, ident, field, clock, device, present,
                sequence)
            VALUES ('mallory', 'bookmark', '6D.6F', 'exists', '\(Self.clock)', 'x', true, 99)
            """, database: hubDatabase, user: "mallory")
        #expect(byHand.status != 0)
        #expect(byHand.stderr.contains("permission denied"), "\(byHand.stderr)")
        // Through the push's own function, past the engine's check: the table's constraint
        // and trigger refuse them still, and what is taken is numbered as a push is.
        func pushedByHand(ident: String, clock: String) throws -> ProcessOutput {
            try server.psql(
                """
                SELECT * FROM prefs_sync_push_store('mallory', '[{"n": 1, "entity": "bookmark",
                    "ident": "\(ident)", "field": "exists", "clock": "\(clock)", "device": "x",
                    "present": true}]'::jsonb, '{}')
                """, database: hubDatabase, user: "mallory")
        }
        let direct = try pushedByHand(ident: ".", clock: Self.clock)
        #expect(direct.status != 0)
        #expect(direct.stderr.contains("sync_change_well_formed"), "\(direct.stderr)")
        let future = try pushedByHand(ident: "6D.6D", clock: ahead.clock)
        #expect(future.status != 0)
        #expect(future.stderr.contains("ahead of the hub"), "\(future.stderr)")
        let numbered = try pushedByHand(ident: "6D.6E", clock: Self.clock)
        #expect(numbered.status == 0, "\(numbered.stderr)")
        let sequences = try database.state.withLock { _ in try engine.pull(after: 0, limit: 100) }
            .map(\.sequence)
        #expect(sequences.count == 2)
        #expect(sequences.last != 99)
        #expect(sequences == sequences.sorted() && Set(sequences).count == 2, "\(sequences)")
    }

    /// The size limit, 4 MiB a value, on both sides: exactly the limit is taken, a byte more
    /// refused alone (the device's check and the hub's, which pushes straight to the engine).
    @Test func aValueOneByteOverFourMiBIsRefusedOnBothSides() throws {
        let limit = SyncValidation.maximumValueBytes
        #expect(limit == 4 * 1024 * 1024)
        let atLimit = Self.preference("big", .string(String(repeating: "a", count: limit)))
        let over = Self.preference("bigger", .string(String(repeating: "a", count: limit + 1)))
        let overData = Self.preference("blob", .data(Data(repeating: 1, count: limit + 1)))
        #expect(SyncValidation.problem(with: atLimit) == nil)
        #expect(SyncValidation.problem(with: over) == "the value is too large")
        #expect(SyncValidation.problem(with: overData) == "the value is too large")
        let database = try AppDatabase.postgreSQL(hub, options: hubOptions("sizes"))
        let engine = try #require(database.state.withLock { $0.engine as? PostgreSQLEngine })
        let outcome = try database.state.withLock { _ in
            try engine.push([atLimit, over, overData], device: "0a1b2c3d4e5f6071", cursor: 0)
        }
        #expect(outcome.accepted == 1)
        #expect(
            outcome.refused.map(\.reason) == ["the value is too large", "the value is too large"])
        #expect(try PreferenceStore(database: database).value(forKey: "big") == atLimit.value)
    }

    /// Rows that break the rules already on a hub (written before the rules, or by the
    /// owner): every device skips and records them, applies the rest, and goes on syncing.
    @Test func malformedRowsAlreadyOnTheHubStopNobody() throws {
        let first = try AppDatabase(path: folder.path("first.db"))
        try PreferenceStore(database: first).setValue(.int(1), forKey: "good")
        try DeviceSync(database: first, hub: hub, account: "alice").sync()
        let bad = Self.malformed.filter { !$0.1.clock.isEmpty }.map(\.1)
        let rows = bad.map { change in
            let columns = change.value?.postgresColumns
            func literal(_ text: String?) -> String {
                text.map { "'" + $0.replacingOccurrences(of: "'", with: "''") + "'" } ?? "NULL"
            }
            return "('alice', \(literal(change.entity.rawValue)), \(literal(change.ident)),"
                + " \(literal(change.field)), \(literal(change.clock)), 'x', \(change.present),"
                + " \(literal(change.value?.type.rawValue)), \(literal(columns?.value)),"
                + " \(literal(columns?.bytes))::bytea, nextval('prefs_sync_sequence'))"
        }
        let planted = try server.psql(
            """
            DO $plant$
            DECLARE
                definition text;
            BEGIN
                SELECT pg_get_constraintdef(oid) INTO definition FROM pg_constraint
                WHERE conname = 'sync_change_well_formed';
                ALTER TABLE sync_change DROP CONSTRAINT sync_change_well_formed;
                ALTER TABLE sync_change DISABLE TRIGGER USER;
                INSERT INTO sync_change (account, entity, ident, field, clock, device, present,
                    type, value, bytes, sequence)
                VALUES \(rows.joined(separator: ",\n")) ON CONFLICT DO NOTHING;
                ALTER TABLE sync_change ENABLE TRIGGER USER;
                EXECUTE 'ALTER TABLE sync_change ADD CONSTRAINT sync_change_well_formed '
                    || definition;
            END
            $plant$;
            """, database: hubDatabase)
        #expect(planted.status == 0, "\(planted.stderr)")
        let second = try AppDatabase(path: folder.path("second.db"))
        let report = try DeviceSync(database: second, hub: hub, account: "alice").sync()
        #expect(report.refused > 0)
        #expect(try PreferenceStore(database: second).value(forKey: "good") == .int(1))
        #expect(try DeviceSync.status(of: second)?.refused == report.refused)
        // Each is listed, with why; names are shown escaped (they may be why).
        let refusals = try DeviceSync.refusals(of: second)
        #expect(refusals.count == report.refused)
        #expect(refusals.allSatisfy { $0.direction == .pull && !$0.reason.isEmpty })
        #expect(refusals.allSatisfy { !$0.subject.contains("\n") && !$0.clock.contains("\u{1}") })
        #expect(refusals.contains { $0.subject == "preference standard two\\nlines" })
        // Rounds go on: a later write arrives, nothing is refused again (the cursor moved).
        try PreferenceStore(database: first).setValue(.int(2), forKey: "good")
        try DeviceSync(database: first, hub: hub, account: "alice").sync()
        let next = try DeviceSync(database: second, hub: hub, account: "alice").sync()
        #expect(next.refused == 0)
        #expect(try PreferenceStore(database: second).value(forKey: "good") == .int(2))
        for key in ["two\nlines", ""] {
            #expect(try PreferenceStore(database: second).value(forKey: key) == nil)
        }
    }

    /// A counter that would need a seventh digit moves the milliseconds on instead, so the
    /// clock's text keeps ordering as the clock.
    @Test func aCounterPastSixDigitsMovesTheMillisecondsOn() throws {
        let path = folder.path("counter.db")
        let database = try AppDatabase(path: path)
        try DeviceSync(database: database, hub: hub, account: "carol").sync()
        let ahead = Int64(Date().timeIntervalSince1970 * 1000) + 60_000
        try database.write { state in
            try (state.engine as? SQLiteEngine)?.connection.execute(
                sql: "UPDATE sync_state SET clock_ms = ?, clock_counter = 999997",
                arguments: [ahead])
        }
        let store = PreferenceStore(database: database)
        try database.transaction {
            for index in 0..<5 { try store.setValue(.int(index), forKey: "k\(index)") }
        }
        let clocks = try database.read { state in
            try (0..<5).compactMap { index in
                try state.engine.sync?.field(
                    SyncAddress(
                        entity: .preference, ident: SyncIdent.make(["standard", "k\(index)"]),
                        field: "value"))?.change.clock
            }
        }
        #expect(clocks.count == 5)
        #expect(clocks.allSatisfy { SyncValidation.strictClock($0) != nil }, "\(clocks)")
        #expect(clocks == clocks.sorted(), "\(clocks)")
        #expect(Set(clocks).count == 5)
        let parsed = clocks.compactMap(HybridClock.init)
        #expect(parsed.last?.milliseconds == ahead + 1)
        #expect(parsed.last?.counter == 2)
        #expect(try DeviceSync(database: database, hub: hub, account: "carol").sync().pushed == 5)
    }

    /// A change a day ahead already on a hub (written before the bound, or by the owner)
    /// is applied, but the device's clock follows it no further than the bound past its own
    /// wall clock: one bad clock does not drag every device along.
    @Test func aPulledClockFarAheadMovesTheDevicesClockOnlyToTheBound() throws {
        let device = try AppDatabase(path: folder.path("device.db"))
        try DeviceSync(database: device, hub: hub, account: "grace").sync()
        let now = Int64(Date().timeIntervalSince1970 * 1000)
        let ahead = HybridClock(milliseconds: now + 86_400_000, counter: 0, device: "future")
        let planted = try server.psql(
            """
            ALTER TABLE sync_change DISABLE TRIGGER USER;
            INSERT INTO sync_change (account, entity, ident, field, clock, device, present,
                sequence, suite, key)
            VALUES ('grace', 'preference', '\(SyncIdent.make(["standard", "theme"]))', 'value',
                '\(ahead.text)', 'future', true, nextval('prefs_sync_sequence'), 'standard',
                'theme');
            ALTER TABLE sync_change ENABLE TRIGGER USER;
            SELECT set_config('prefs.sync_applying', 'on', false);
            INSERT INTO preference (account, suite, key, type, value, updated_at)
            VALUES ('grace', 'standard', 'theme', 'string', 'dark', 0);
            """, database: hubDatabase)
        #expect(planted.status == 0, "\(planted.stderr)")
        try DeviceSync(database: device, hub: hub, account: "grace").sync()
        #expect(try PreferenceStore(database: device).value(forKey: "theme") == .string("dark"))
        let clock = try device.read { state in
            try (state.engine as? SQLiteEngine)?.connection.scalar(
                Int64.self, sql: "SELECT clock_ms FROM sync_state") ?? 0
        }
        let wall = Int64(Date().timeIntervalSince1970 * 1000)
        #expect(clock <= wall + SyncValidation.defaultClockBoundMilliseconds)
        #expect(clock >= now + SyncValidation.defaultClockBoundMilliseconds - 60_000)
    }
}
