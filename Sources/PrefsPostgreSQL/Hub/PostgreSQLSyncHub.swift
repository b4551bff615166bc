internal import PostgresCore
import PrefsKit
import PrefsSync

#if canImport(FoundationEssentials) && !PREFS_FULL_FOUNDATION
    import FoundationEssentials
#else
    import Foundation
#endif

/// The hub of sync over the tables of `Migrations/postgres/0004_sync.sql`, for the
/// engine's account.
extension PostgreSQLEngine: SyncHub {
    /// One pushed change as the push statement reads it from its JSON parameter.
    private struct PushedRow: Encodable {
        var n: Int
        var entity: String
        var ident: String
        var field: String
        var clock: String
        var device: String
        var present: Bool
        var type: String?
        var value: String?
        var bytes: String?
    }

    func push(_ changes: [SyncChange], device: String, cursor: Int64) throws
        -> SyncPushOutcome
    {
        let (sent, refused) = Self.sendable(changes)
        guard !sent.isEmpty else {
            return SyncPushOutcome(accepted: 0, lost: [], overwritten: [], refused: refused)
        }
        let document = try Self.pushDocument(sent, device: device)
        var outcome = try reconnecting {
            try transaction {
                try pushSteps(sent, device: device, document: document, cursor: cursor)
            }
        }
        outcome.refused = refused + outcome.refused
        isSyncStarted = true
        return outcome
    }

    /// The changes the hub's statements can carry, and those refused here: text with a NUL
    /// character cannot be a PostgreSQL text or JSON value at all, so it would fail the whole
    /// push (22P05) where the hub's rules refuse one change alone. The same rules as the
    /// hub's (``SyncValidation``), checked before the statement.
    private static func sendable(_ changes: [SyncChange]) -> (
        sent: [SyncChange], refused: [(change: SyncChange, reason: String)]
    ) {
        var sent: [SyncChange] = []
        var refused: [(change: SyncChange, reason: String)] = []
        sent.reserveCapacity(changes.count)
        for change in changes {
            if let problem = SyncValidation.problem(with: change),
                problem == SyncValidation.nulProblem
            {
                refused.append((change, problem))
            } else {
                sent.append(change)
            }
        }
        return (sent, refused)
    }

    /// A push under an idempotency key (prefs-server, docs/sync-protocol.md): the first
    /// push with the key runs and its answer (`answer` writes it) is kept with it, in the
    /// push's own transaction; a push with a key already kept runs nothing and gets the
    /// kept answer. Two pushes with one key at once: the second waits for the first's
    /// commit (the key is claimed by an insert), then gets its answer.
    func push(
        _ changes: [SyncChange], device: String, cursor: Int64, idempotencyKey key: String,
        answer: (SyncPushOutcome) throws -> String
    ) throws -> String {
        let (sent, refused) = Self.sendable(changes)
        let document = try Self.pushDocument(sent, device: device)
        let text = try reconnecting {
            try transaction {
                if let kept = try claimReceipt(key, device: device, document: document) {
                    return kept
                }
                var outcome =
                    sent.isEmpty
                    ? SyncPushOutcome(accepted: 0, lost: [], overwritten: [])
                    : try pushSteps(sent, device: device, document: document, cursor: cursor)
                outcome.refused = refused + outcome.refused
                let text = try answer(outcome)
                try connection.execute(
                    prepared: "sync_receipt_keep",
                    """
                    UPDATE prefs_push_receipt SET response = $3 WHERE account = $1 AND key = $2
                    """, [account, key, text])
                // Kept a day: a device sends a push again within seconds or minutes.
                try connection.execute(
                    prepared: "sync_receipt_expire",
                    """
                    DELETE FROM prefs_push_receipt
                    WHERE account = $1 AND made_at < now() - interval '1 day'
                    """, [account])
                return text
            }
        }
        isSyncStarted = true
        return text
    }

    /// Claims an idempotency key for this push; the kept answer when a push claimed it
    /// before, nil when this one claims it. A key is bound to the device and the changes of
    /// the push that claimed it (a hash of the document), for a day: a kept key sent with
    /// another device or other changes is refused (``IdempotencyKeyReused``), and one claimed
    /// more than a day ago is claimed anew. Two pushes with one key at once: the second's
    /// insert waits for the first's commit.
    private func claimReceipt(_ key: String, device: String, document: String) throws -> String? {
        func claim() throws -> Bool {
            try connection.execute(
                prepared: "sync_receipt_claim",
                """
                INSERT INTO prefs_push_receipt (account, key, device, changes_hash)
                VALUES ($1, $2, $3, sha256(convert_to($4::jsonb::text, 'UTF8')))
                ON CONFLICT (account, key) DO NOTHING
                """, [account, key, device, document]
            ).affectedRows > 0
        }
        if try claim() { return nil }
        let kept = try connection.execute(
            prepared: "sync_receipt_read",
            """
            SELECT response, device = $3, changes_hash IS NULL
                    OR changes_hash = sha256(convert_to($4::jsonb::text, 'UTF8')),
                made_at < now() - interval '1 day'
            FROM prefs_push_receipt WHERE account = $1 AND key = $2
            """, [account, key, device, document])
        if kept.text(row: 0, column: 3) == "t" {
            _ = try connection.execute(
                prepared: "sync_receipt_expired",
                "DELETE FROM prefs_push_receipt WHERE account = $1 AND key = $2",
                [account, key])
            if try claim() { return nil }
        }
        guard kept.text(row: 0, column: 1) == "t", kept.text(row: 0, column: 2) == "t" else {
            throw IdempotencyKeyReused(key: key)
        }
        if let response = kept.text(row: 0, column: 0) { return response }
        throw DatabaseError.internalError("the push receipt '\(key)' has no answer")
    }

    /// The pushed changes as the push statement reads them: one JSON document.
    private static func pushDocument(_ changes: [SyncChange], device: String) throws -> String {
        let rows = changes.enumerated().map { index, change in
            let columns = change.value?.postgresColumns
            return PushedRow(
                n: index + 1, entity: change.entity.rawValue, ident: change.ident,
                field: change.field, clock: change.clock,
                device: HybridClock(change.clock)?.device ?? device,
                present: change.present, type: change.value?.type.rawValue,
                value: columns?.value, bytes: columns?.bytes)
        }
        return String(decoding: try JSONEncoder().encode(rows), as: UTF8.self)
    }

    /// A preference's value is read from the preference table (the hub keeps no copy of
    /// it); a bookmark field's and a tag's from its sync row.
    private static let values = """
        CASE WHEN s.entity = 'preference' THEN p.type ELSE s.type END,
        CASE WHEN s.entity = 'preference' THEN p.value ELSE s.value END,
        CASE WHEN s.entity = 'preference' THEN p.bytes ELSE s.bytes END
        """
    private static let valuesJoin = """
        LEFT JOIN preference AS p ON s.entity = 'preference' AND s.present
            AND p.account = s.account AND p.suite = s.suite AND p.key = s.key
        """

    /// Turns the account's stamping on, once, for a device that pulls before it ever
    /// pushed: what the server wrote before is stamped and pulled.
    private func startSync() throws {
        guard !isSyncStarted else { return }
        try reconnecting {
            try transaction {
                let opening = try connection.execute(
                    prepared: "sync_start",
                    "SELECT b.number, b.rebuild FROM prefs_sync_begin($1) AS b", [account])
                if opening.text(row: 0, column: 1) == "t" { try rebuildEveryBookmark() }
            }
        }
        isSyncStarted = true
    }

    /// Makes the account's bookmarks what their merged fields say (those a push changed),
    /// through the bookmark repository, which places, orders and indexes them as for any
    /// writer; then orders their kinds by the merged positions.
    private func rebuild(_ bookmarks: [[String]]) throws {
        guard !bookmarks.isEmpty else { return }
        let rebuilder = SyncBookmarkRebuild(
            bookmarks: bookmarkRepository,
            fields: HubBookmarkFields(connection: connection, account: account))
        var kinds: [String] = []
        try bookmarkRepository.batchingSearchRows {
            for bookmark in bookmarks {
                // One bookmark whose merged fields break a rule is left as it was (each
                // device records it as refused); the others go on.
                do {
                    try nestedTransaction {
                        try rebuilder.rebuild(kind: bookmark[0], itemID: bookmark[1])
                    }
                } catch is BookmarkError {
                    continue
                }
                if !kinds.contains(where: { ExactName.sameBytes($0, bookmark[0]) }) {
                    kinds.append(bookmark[0])
                }
            }
            for kind in kinds { try rebuilder.renumber(kind: kind) }
        }
    }

    /// A hub from before the account's tables were its store held bookmarks as sync
    /// fields only: they are built once, at the next contact of a device.
    private func rebuildEveryBookmark() throws {
        let result = try connection.execute(
            prepared: "sync_every_bookmark",
            """
            SELECT DISTINCT split_part(ident, '.', 1) || '.' || split_part(ident, '.', 2)
            FROM sync_change WHERE account = $1 AND entity IN ('bookmark', 'tag')
            """, [account])
        try rebuild(
            (0..<result.rowCount).compactMap { row in
                result.text(row: row, column: 0).flatMap(SyncIdent.parts).flatMap {
                    $0.count == 2 ? $0 : nil
                }
            })
        try connection.execute(
            prepared: "sync_rebuilt", "SELECT prefs_sync_rebuilt($1)", [account])
    }

    /// A push, inside the caller's hub transaction: its steps, each named below.
    private func pushSteps(
        _ changes: [SyncChange], device: String, document: String, cursor: Int64
    ) throws -> SyncPushOutcome {
        let number = try openPush()
        let result = try pushAll(document: document, cursor: cursor, device: device)
        let rows = Self.readPushRows(result, of: changes)
        try rebuild(rows.bookmarks)
        try recordDevicePushed(
            device: device,
            newestClock: Self.newestOwnClock(changes, device: device, excluding: rows.excluded))
        try notifyOtherDevices()
        let (lost, winners, overwritten) = Self.conflicts(result, of: changes)
        var outcome = SyncPushOutcome(
            accepted: rows.accepted, lost: lost, overwritten: overwritten,
            refused: rows.refused, clockAhead: rows.ahead,
            hubClock: rows.clockLimit - (rows.clockBound ?? 0))
        outcome.winners = winners
        outcome.clockBound = rows.clockBound ?? outcome.clockBound
        outcome.stale = rows.stale
        outcome.pushedClock = rows.pushedClock
        if outcome.accepted > 0 { outcome.sequence = number }
        return outcome
    }

    /// Takes the account's sync lock and the push's number. The lock is an advisory lock on
    /// no row, held to the commit, taken before the account's state row as every writer of a
    /// syncing account takes it: pushes and server writes of one account number their
    /// changes one after another, from a sequence, and commit in that order, so what each
    /// push reports is exact. One number for the whole push: a pull reads whole pushes. The
    /// first contact turns the account's stamping on (and builds the bookmarks of a hub from
    /// before the account's tables were its store); what the push applies to the account's
    /// tables is not stamped again. The hub's functions do each of these, and every write of
    /// its sync tables below (docs/sync.md).
    private func openPush() throws -> Int64 {
        let opening = try connection.execute(
            prepared: "sync_push_open",
            "SELECT b.number, b.rebuild FROM prefs_sync_begin($1) AS b", [account])
        if opening.text(row: 0, column: 1) == "t" { try rebuildEveryBookmark() }
        return opening.integer(row: 0, column: 0) ?? 0
    }

    /// The rest in one call of the hub, which reads the document once: each change against
    /// the rules and the clock bound (a malformed one or one stamped too far ahead is refused
    /// and reported; the rest go on); the hub's rows as new or newer (the change loses to
    /// them), and the older ones of other devices that the pushing device had not pulled (it
    /// replaces them: the losing sides of conflicts); then the store of the winners, with
    /// preferences applied in the hub's function and bookmarks and tags by ``rebuild(_:)``
    /// (`Migrations/postgres/0018_push_in_one_call.sql`).
    private func pushAll(document: String, cursor: Int64, device: String) throws -> PGResult {
        try connection.execute(
            prepared: "sync_push_all", "SELECT * FROM prefs_sync_push($1, $2::jsonb, $3, $4)",
            [account, document, String(cursor), device])
    }

    /// What the rows of `prefs_sync_push` say besides the rows met: changes refused and
    /// why, changes whose clock is ahead, changes to stamp again above the newest clock taken
    /// from the device (`Migrations/postgres/0023_sync_stamps_intent.sql`), bookmarks to
    /// rebuild, and the push's tally.
    private struct PushRows {
        var refused: [(change: SyncChange, reason: String)] = []
        var ahead: [SyncChange] = []
        var stale: [SyncChange] = []
        var pushedClock: String?
        /// The numbers (from 1) of the changes not taken for the rules or the clock.
        var excluded: [Int] = []
        var bookmarks: [[String]] = []
        var accepted = 0
        var clockLimit: Int64 = 0
        var clockBound: Int64?
    }

    private static func readPushRows(_ result: PGResult, of changes: [SyncChange]) -> PushRows {
        var rows = PushRows()
        for row in 0..<result.rowCount {
            if let clock = result.text(row: row, column: 18) { rows.pushedClock = clock }
            if result.text(row: row, column: 17) == "t" {
                guard let n = result.integer(row: row, column: 0),
                    changes.indices.contains(Int(n) - 1)
                else { continue }
                rows.excluded.append(Int(n))
                rows.stale.append(changes[Int(n) - 1])
            } else if result.text(row: row, column: 14) == "t" {
                guard let n = result.integer(row: row, column: 0),
                    changes.indices.contains(Int(n) - 1)
                else { continue }
                rows.excluded.append(Int(n))
                let change = changes[Int(n) - 1]
                if let problem = result.text(row: row, column: 13) {
                    rows.refused.append((change, problem))
                } else {
                    rows.ahead.append(change)
                }
            } else if let kind = result.text(row: row, column: 10),
                let item = result.text(row: row, column: 11)
            {
                if let parts = SyncIdent.parts(kind + "." + item), parts.count == 2 {
                    rows.bookmarks.append(parts)
                }
            } else if let taken = result.integer(row: row, column: 12) {
                rows.accepted = Int(taken)
                rows.clockLimit = result.integer(row: row, column: 15) ?? 0
                rows.clockBound = result.integer(row: row, column: 16)
            }
        }
        return rows
    }

    /// Notes the newest clock the device pushed and the hub took.
    private func recordDevicePushed(device: String, newestClock: String?) throws {
        _ = try connection.execute(
            prepared: "sync_device_known", "SELECT prefs_sync_device_pushed($1, $2, $3)",
            [account, device, newestClock])
    }

    /// A hint to the account's other devices: pull now.
    private func notifyOtherDevices() throws {
        _ = try connection.execute(
            prepared: "sync_notify", "SELECT pg_notify($1, prefs_notify_payload())", [channel])
    }

    /// The conflicts of a push, from the rows it met: the pushed changes that lost to the
    /// hub's rows (and those rows, which the device takes at once), and the hub's rows of
    /// other devices that the push replaced.
    private static func conflicts(_ met: PGResult, of changes: [SyncChange]) -> (
        lost: [(change: SyncChange, winner: String)], winners: [SyncChange],
        overwritten: [(change: SyncChange, winner: String)]
    ) {
        var lost: [(change: SyncChange, winner: String)] = []
        var winners: [SyncChange] = []
        var overwritten: [(change: SyncChange, winner: String)] = []
        for (row, hubRow) in Self.changes(met, from: 1) {
            guard let n = met.integer(row: row, column: 0), changes.indices.contains(Int(n) - 1)
            else { continue }
            let pushed = changes[Int(n) - 1]
            switch met.text(row: row, column: 9) {
            // The hub's row is new or newer: the pushed change loses (the same change
            // pushed again is no loss).
            case "t" where hubRow.clock != pushed.clock:
                lost.append((pushed, hubRow.clock))
                winners.append(hubRow)
            // The push replaced a change the device had not pulled.
            case "f": overwritten.append((hubRow, pushed.clock))
            default: break
            }
        }
        return (lost, winners, overwritten)
    }

    func pull(after cursor: Int64, limit: Int) throws -> [(
        change: SyncChange, sequence: Int64
    )] {
        try reconnectIfNeeded()
        let result = try reconnecting {
            try connection.execute(
                prepared: "sync_pull",
                """
                SELECT s.entity, s.ident, s.field, s.clock, s.present, \(Self.values),
                    s.sequence
                FROM sync_change AS s \(Self.valuesJoin)
                WHERE s.account = $1 AND s.sequence > $2
                ORDER BY s.sequence LIMIT $3
                """, [account, String(cursor), limit == Int.max ? nil : String(limit)])
        }
        return Self.changes(result, from: 0).compactMap { row, change in
            result.integer(row: row, column: 8).map { (change, $0) }
        }
    }

    /// Reads changes from a result whose columns from `first` on are entity, ident,
    /// field, clock, present, type, value, bytes; with the row of each.
    private static func changes(_ result: PGResult, from first: Int) -> [(
        row: Int, change: SyncChange
    )] {
        (0..<result.rowCount).compactMap { row in
            guard
                let entity = result.text(row: row, column: first).flatMap(
                    SyncEntity.init(rawValue:)),
                let ident = result.text(row: row, column: first + 1),
                let field = result.text(row: row, column: first + 2),
                let clock = result.text(row: row, column: first + 3)
            else { return nil }
            let value = PreferenceValue(
                postgresType: result.text(row: row, column: first + 5),
                value: result.text(row: row, column: first + 6),
                bytes: result.bytes(row: row, column: first + 7))
            let change = SyncChange(
                entity: entity, ident: ident, field: field, clock: clock,
                present: result.text(row: row, column: first + 4) == "t", value: value)
            return (row, change)
        }
    }

    /// Runs the work again, once, after the connection was found lost on the way: a
    /// server that restarted since the last round. Every step of sync may run twice (a
    /// push of the same changes again takes none).
    private func reconnecting<T>(_ work: () throws -> T) throws -> T {
        do {
            return try work()
        } catch let error as PGError where error.isConnectionLost {
            try reconnectIfNeeded()
            return try work()
        }
    }

    /// The newest clock of the device's own among the changes the hub took or had
    /// newer (refused ones are left out: a clock refused for being ahead is stamped again):
    /// the device's file holds a clock at least as new, unless it was restored from an
    /// older copy.
    private static func newestOwnClock(
        _ changes: [SyncChange], device: String, excluding excluded: [Int]
    ) -> String? {
        let left = Set(excluded)
        return changes.enumerated().filter { index, change in
            !left.contains(index + 1) && HybridClock(change.clock)?.device == device
        }.map(\.element.clock).max()
    }

    func pullRound(
        after cursor: Int64, device: String, leavingOut: Int64?, deviceClock: String?,
        limit: SyncPullLimit?
    ) throws -> SyncPull {
        try reconnectIfNeeded()
        // A read-only hub (a standby) pulls what the primary's stamping wrote.
        if !isReadOnly { try startSync() }
        return try reconnecting {
            try transaction(snapshot: true) {
                // Older than a clock the hub took from it: the file is an older copy
                // (restored), which lacks what it pushed since; it pulls everything.
                let isRestored =
                    try deviceClock.map { clock in
                        try connection.execute(
                            prepared: "sync_restored",
                            """
                            SELECT left(pushed_clock, 22) > $3 COLLATE "C" FROM sync_device
                            WHERE account = $1 AND device = $2
                            """, [account, device, clock]
                        ).text(row: 0, column: 0) == "t"
                    } ?? false
                let from = isRestored ? 0 : cursor
                // A page ends after a whole push (its changes share its number): the
                // pushes after the cursor, sized without their values read, as far as the
                // limit reaches.
                let last = try limit.flatMap { limit -> Int64? in
                    let pushes = try connection.execute(
                        prepared: "sync_pull_pushes",
                        """
                        SELECT s.sequence, count(*), sum(
                            coalesce(pg_column_size(
                                CASE WHEN s.entity = 'preference' THEN p.value ELSE s.value END), 0)
                            + coalesce(pg_column_size(
                                CASE WHEN s.entity = 'preference' THEN p.bytes ELSE s.bytes END), 0))
                        FROM sync_change AS s \(Self.valuesJoin)
                        WHERE s.account = $1 AND s.sequence > $2
                        GROUP BY s.sequence ORDER BY s.sequence LIMIT $3
                        """, [account, String(from), String(limit.changes + 1)])
                    return limit.lastPush(
                        of: (0..<pushes.rowCount).compactMap { row in
                            guard let number = pushes.integer(row: row, column: 0),
                                let changes = pushes.integer(row: row, column: 1)
                            else { return nil }
                            let bytes = pushes.integer(row: row, column: 2) ?? 0
                            return (number, Int(changes), Int(bytes))
                        })
                }
                // The round's own push is left out (the device holds it; what the push's
                // transaction stamped for the server, when it started sync, comes); every other row
                // after the cursor comes, the device's own from earlier pushes included: a
                // file restored from a copy, or killed before it recorded a pull, may lack
                // them.
                let result = try connection.execute(
                    prepared: "sync_pull_round",
                    """
                    SELECT s.entity, s.ident, s.field, s.clock, s.present, \(Self.values),
                        s.sequence
                    FROM sync_change AS s \(Self.valuesJoin)
                    WHERE s.account = $1 AND s.sequence > $2
                        AND NOT (s.sequence IS NOT DISTINCT FROM $3::bigint
                            AND s.device = $4)
                        AND ($5::bigint IS NULL OR s.sequence <= $5::bigint)
                    ORDER BY s.sequence
                    """,
                    [
                        account, String(from), leavingOut.map(String.init), device,
                        last.map(String.init),
                    ])
                let rows = Self.changes(result, from: 0).compactMap { row, change in
                    result.integer(row: row, column: 8).map { (change, $0) }
                }
                let through = try connection.execute(
                    prepared: "sync_pull_through",
                    "SELECT max(sequence) FROM sync_change WHERE account = $1 AND sequence > $2",
                    [account, String(from)]
                ).integer(row: 0, column: 0)
                var pulled = SyncPull(rows: rows)
                pulled.through = last ?? through ?? rows.last?.1
                pulled.hasMore = last != nil
                pulled.isRestored = isRestored
                pulled.hubMilliseconds = try connection.execute(
                    prepared: "sync_hub_clock", "SELECT prefs_sync_now_ms()", []
                ).integer(row: 0, column: 0)
                // Asked of a standby only (``DeviceSync`` checks it there).
                if isReadOnly { pulled.position = try position() }
                return pulled
            }
        }
    }

    func position() throws -> Int64 {
        try reconnecting {
            try connection.execute(
                prepared: "sync_position",
                """
                SELECT greatest(
                    (SELECT max(sequence) FROM sync_change WHERE account = $1),
                    (SELECT sync_horizon_sequence FROM prefs_account_state
                        WHERE account = $1), 0)
                """, [account]
            ).integer(row: 0, column: 0) ?? 0
        }
    }

    func clockBound() throws -> Int64 {
        try reconnecting {
            try connection.execute(
                prepared: "sync_clock_bound", "SELECT clock_bound_ms FROM prefs_sync_config",
                []
            ).integer(row: 0, column: 0) ?? SyncValidation.defaultClockBoundMilliseconds
        }
    }

    func forget(device: String) throws {
        try reconnecting {
            _ = try connection.execute(
                prepared: "sync_forget", "SELECT prefs_sync_device_forget($1, $2)",
                [account, device])
        }
    }

    func setName(_ name: String?, device: String) throws {
        try reconnecting {
            _ = try connection.execute(
                prepared: "sync_device_name", "SELECT prefs_sync_device_name($1, $2, $3)",
                [account, device, name])
        }
    }

    func deviceNames() throws -> [String: String] {
        try reconnecting {
            let result = try connection.execute(
                prepared: "sync_device_names",
                "SELECT device, name FROM sync_device WHERE account = $1 AND name IS NOT NULL",
                [account])
            var names: [String: String] = [:]
            for row in 0..<result.rowCount {
                if let device = result.text(row: row, column: 0),
                    let name = result.text(row: row, column: 1)
                {
                    names[device] = name
                }
            }
            return names
        }
    }

    func report(device: String, cursor: Int64) throws {
        try reconnecting { try reportTransaction(device: device, cursor: cursor) }
    }

    private func reportTransaction(device: String, cursor: Int64) throws {
        try transaction {
            _ = try connection.execute(
                prepared: "sync_report", "SELECT prefs_sync_device_report($1, $2, $3)",
                [account, device, String(cursor)])
        }
    }
}

/// The hub's merged bookmark fields: the sync rows of the account's bookmarks and tags.
private struct HubBookmarkFields: SyncBookmarkFields {
    let connection: PGConnection
    let account: String

    func bookmarkFields(kind: String, itemID: String) throws -> [String: SyncChange] {
        let ident = SyncIdent.make([kind, itemID])
        let result = try connection.execute(
            prepared: "sync_bookmark_fields",
            """
            SELECT field, clock, present, type, value FROM sync_change
            WHERE account = $1 AND entity = 'bookmark' AND ident = $2
            """, [account, ident])
        var fields: [String: SyncChange] = [:]
        for row in 0..<result.rowCount {
            guard let field = result.text(row: row, column: 0) else { continue }
            fields[field] = SyncChange(
                entity: .bookmark, ident: ident, field: field,
                clock: result.text(row: row, column: 1) ?? "",
                present: result.text(row: row, column: 2) == "t",
                value: PreferenceValue(
                    postgresType: result.text(row: row, column: 3),
                    value: result.text(row: row, column: 4), bytes: nil))
        }
        return fields
    }

    func bookmarkTags(kind: String, itemID: String, since: String) throws -> [String] {
        // Every tag's ident starts with the bookmark's and a dot; hex digits sort before
        // "G".
        let prefix = SyncIdent.make([kind, itemID]) + "."
        let result = try connection.execute(
            prepared: "sync_bookmark_tags",
            """
            SELECT ident FROM sync_change
            WHERE account = $1 AND entity = 'tag' AND present
                AND ident COLLATE "C" >= $2 AND ident COLLATE "C" < $2 || 'G'
                AND clock >= $3 COLLATE "C"
            """, [account, prefix, since])
        return (0..<result.rowCount).compactMap { row in
            result.text(row: row, column: 0).flatMap(SyncIdent.parts).flatMap {
                $0.count == 3 ? $0[2] : nil
            }
        }.sorted(by: ExactName.precedes)
    }

    func markMisaligned(kind: String) throws {
        try connection.execute(
            prepared: "sync_misaligned", "SELECT prefs_sync_mark_misaligned($1, $2)",
            [account, kind])
    }

    func bookmarkPositions(kind: String) throws -> [ExactName: Int] {
        let prefix = SyncIdent.make([kind]) + "."
        let result = try connection.execute(
            prepared: "sync_bookmark_positions",
            """
            SELECT ident, value FROM sync_change
            WHERE account = $1 AND entity = 'bookmark' AND field = 'position'
                AND ident COLLATE "C" >= $2 AND ident COLLATE "C" < $2 || 'G'
            """, [account, prefix])
        var positions: [ExactName: Int] = [:]
        for row in 0..<result.rowCount {
            if let parts = result.text(row: row, column: 0).flatMap(SyncIdent.parts),
                parts.count == 2,
                let position = result.text(row: row, column: 1).flatMap({ Int($0) })
            {
                positions[ExactName(parts[1])] = position
            }
        }
        return positions
    }
}

/// An idempotency key kept for another push (another device of the account, or other
/// changes) was sent again: the push is refused, never answered with that push's receipt.
package struct IdempotencyKeyReused: Error, CustomStringConvertible {
    package let key: String

    package var description: String {
        "the idempotency key '\(MessageText.shown(key))' was used for another push"
    }
}
