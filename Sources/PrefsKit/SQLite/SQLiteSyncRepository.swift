internal import SQLiteCore

#if canImport(FoundationEssentials) && !PREFS_FULL_FOUNDATION
    import FoundationEssentials
#else
    import Foundation
#endif

/// The SQLite implementation of ``SyncRepository`` over the tables of
/// `Migrations/0008_sync.sql` and `Migrations/0009_sync_rules.sql`.
final class SQLiteSyncRepository: SyncRepository, SyncDeviceRecords {
    let connection: Connection
    /// Where pending preferences' values are read.
    let preferences: SQLitePreferenceRepository

    init(connection: Connection, preferences: SQLitePreferenceRepository) {
        self.connection = connection
        self.preferences = preferences
    }

    func deviceState() throws -> SyncDeviceState? {
        let rows = try connection.rows(
            sql: """
                SELECT device_id, hub, account, cursor, last_push, last_pull, last_error,
                    clock_ahead_ms, printf('%015d-%06d', clock_ms, clock_counter),
                    clock_offset_ms, last_error_at, last_error_exit, ca_file
                FROM sync_state WHERE is_left = 0
                """)
        guard let row = rows.first, let deviceID = row.get(0, as: String.self) else {
            return nil
        }
        var state = SyncDeviceState(
            deviceID: deviceID, hub: row.get(1), account: row.get(2),
            cursor: row.get(3) ?? 0, lastPush: row.get(4, as: Double.self).map(Self.date),
            lastPull: row.get(5, as: Double.self).map(Self.date), lastError: row.get(6),
            clockAheadMilliseconds: row.get(7))
        state.clock = row.get(8)
        state.clockOffsetMilliseconds = row.get(9)
        state.lastErrorAt = row.get(10, as: Double.self).map(Self.date)
        state.lastErrorExitCode = row.get(11)
        state.certificateAuthorityFile = row.get(12)
        return state
    }

    private static func date(_ seconds: Double) -> Date {
        Date(timeIntervalSinceReferenceDate: seconds)
    }

    func start(deviceID: String, hub: String, account: String) throws -> Bool {
        // A device that left: its capture went on, every field keeps its clock. It joins as a
        // new device (the hub forgot the old one; a skew set by tests goes too) and pulls
        // everything; with another account, everything it holds goes to that account, as it
        // was stamped.
        if let left = try connection.rows(
            sql: "SELECT left_account FROM sync_state WHERE is_left = 1"
        ).first {
            try connection.execute(
                sql: """
                    UPDATE sync_state SET device_id = ?, hub = ?, account = ?, cursor = 0,
                        is_left = 0, left_account = NULL, last_push = NULL, last_pull = NULL,
                        last_error = NULL, last_error_at = NULL, last_error_exit = NULL,
                        clock_ahead_ms = NULL, clock_skew_ms = 0,
                        clock_offset_ms = NULL
                    """, arguments: [deviceID, hub, account])
            if left.get(0, as: String.self) != account {
                try connection.execute(sql: "UPDATE sync_field SET pending = 1")
            }
            try SyncCapture.create(connection)
            return true
        }
        try connection.execute(
            sql: "INSERT INTO sync_state (only, device_id, hub, account) VALUES (1, ?, ?, ?)",
            arguments: [deviceID, hub, account])
        // From here on, every local write is captured, in this transaction already.
        try SyncCapture.create(connection)
        // What is there already is stamped with the time it was last written (so that an
        // older value does not win over a newer one of another device for having been
        // turned on later), counter 0, this device: a preference the later of its row's time
        // and its last write that repeated the value, a bookmark's field and tag the time of
        // its last edit before (Migrations/0013), else the bookmark's creation. The time it was
        // made, not capped by the clock now: a clock set back since must not make a write
        // older than what it followed. A time from a clock that was ahead is refused by the
        // hub for its bound, and stamped again once the clock is right (DeviceSync.push).
        func stamp(_ milliseconds: String) -> String {
            "printf('%015d-%06d-%s', max(0, \(milliseconds)), 0, ?)"
        }
        func written(_ seconds: String) -> String {
            "CAST((\(seconds) + 978307200) * 1000 AS INTEGER)"
        }
        func early(_ entity: String, _ ident: String, _ field: String, after: String) -> String {
            """
            max(\(after), coalesce((SELECT e.written_ms FROM sync_written_early AS e
                WHERE e.entity = '\(entity)' AND e.ident = \(ident) AND e.field = '\(field)'), 0))
            """
        }
        try connection.execute(
            sql: """
                INSERT INTO sync_field (entity, ident, field, clock, present, value, pending)
                SELECT 'preference', hex(suite) || '.' || hex(key), 'value',
                    \(stamp(early("preference", "hex(suite) || '.' || hex(key)", "value",
                        after: written("updated_at")))), 1, NULL, 1
                FROM preference AS p WHERE NOT EXISTS (
                    SELECT 1 FROM preference_declaration AS d
                    WHERE d.suite = p.suite AND d.key = p.key AND d.device_local = 1)
                """, arguments: [deviceID])
        let bookmarkIdent = "hex(kind) || '.' || hex(item_id)"
        for (field, column) in [
            ("exists", "NULL"), ("title", "title"), ("url", "url"), ("category", "category"),
            ("note", "note"), ("position", "position"), ("folder", "NULL"),
        ] {
            let milliseconds =
                field == "exists"
                ? written("created_at")
                : early("bookmark", bookmarkIdent, field, after: written("created_at"))
            try connection.execute(
                sql: """
                    INSERT INTO sync_field (entity, ident, field, clock, present, value, pending)
                    SELECT 'bookmark', \(bookmarkIdent), '\(field)', \(stamp(milliseconds)), 1,
                        \(column), 1
                    FROM bookmark
                    """, arguments: [deviceID])
        }
        let tagIdent = "hex(kind) || '.' || hex(item_id) || '.' || hex(tag)"
        try connection.execute(
            sql: """
                INSERT INTO sync_field (entity, ident, field, clock, present, value, pending)
                SELECT 'tag', \(tagIdent), 'present',
                    \(stamp(early("tag", tagIdent, "present", after: written("created_at")))),
                    1, NULL, 1
                FROM bookmark_tag JOIN bookmark ON bookmark.id = bookmark_tag.bookmark_id
                """, arguments: [deviceID])
        try connection.execute(sql: "DELETE FROM sync_written_early")
        // What was removed before, and is not there again: a tombstone of its time.
        try connection.execute(
            sql: """
                INSERT INTO sync_field (entity, ident, field, clock, present, value, pending)
                SELECT r.entity, r.ident, r.field, \(stamp("removed_ms")), 0, NULL, 1
                FROM sync_removed_early AS r WHERE NOT EXISTS (
                    SELECT 1 FROM sync_field AS f
                    WHERE f.entity = r.entity AND f.ident = r.ident AND f.field = r.field)
                """, arguments: [deviceID])
        // A bookmark removed before: its newest removal, also when it was added again since
        // (the tags from before it stay off).
        try connection.execute(
            sql: """
                INSERT OR REPLACE INTO sync_field (entity, ident, field, clock, present, value,
                    pending)
                SELECT 'bookmark', r.ident, '\(SyncFields.bookmarkRemoved)', \(stamp("removed_ms")),
                    1, NULL, 1
                FROM sync_removed_early AS r WHERE r.entity = 'bookmark' AND r.field = 'exists'
                """, arguments: [deviceID])
        try connection.execute(sql: "DELETE FROM sync_removed_early")
        // The clock starts past every stamp.
        try connection.execute(
            sql: """
                UPDATE sync_state SET clock_ms = max(clock_ms, coalesce((
                    SELECT max(CAST(substr(clock, 1, 15) AS INTEGER)) FROM sync_field), 0))
                """)
        return false
    }

    func setHub(_ hub: String, account: String) throws {
        try connection.execute(
            sql: "UPDATE sync_state SET hub = ?, account = ?", arguments: [hub, account])
    }

    func pendingChanges(limit: Int) throws -> [SyncChange] {
        let rows = try connection.rows(
            sql: """
                SELECT entity, ident, field, clock, present, value FROM sync_field
                WHERE pending = 1 ORDER BY clock LIMIT ?
                """, arguments: [limit])
        return try rows.compactMap { row in
            guard let entity = row.get(0, as: String.self).flatMap(SyncEntity.init(rawValue:)),
                let ident = row.get(1, as: String.self), let field = row.get(2, as: String.self),
                let clock = row.get(3, as: String.self)
            else { return nil }
            var present = row.get(4, as: Bool.self) ?? false
            var value: PreferenceValue? = nil
            if entity == .preference {
                guard let parts = SyncIdent.parts(ident), parts.count == 2 else { return nil }
                if present {
                    value = try preferences.value(suite: parts[0], key: parts[1])
                    // Stamped as set, but no longer there: the removal is stamped too, later.
                    if value == nil { present = false }
                }
            } else if entity == .bookmark, field == "folder" {
                guard let parts = SyncIdent.parts(ident), parts.count == 2 else { return nil }
                value = try folderPath(kind: parts[0], itemID: parts[1]).map { .string($0) }
            } else {
                value = Self.fieldValue(row[5])
            }
            return SyncChange(
                entity: entity, ident: ident, field: field, clock: clock, present: present,
                value: value)
        }
    }

    /// A bookmark's folder path as ``SyncIdent`` text of its names (empty at the top level;
    /// a bookmark with only a category is in the top-level folder of that name); nil when
    /// there is no such bookmark.
    private func folderPath(kind: String, itemID: String) throws -> String? {
        let statement = try connection.cachedStatement(
            literal: """
                WITH RECURSIVE chain (id, parent_id, name, depth) AS (
                    SELECT f.id, f.parent_id, f.name, 0 FROM bookmark_folder AS f
                    WHERE f.id = (SELECT folder_id FROM bookmark WHERE kind = ?1 AND item_id = ?2)
                    UNION ALL
                    SELECT f.id, f.parent_id, f.name, c.depth + 1
                    FROM bookmark_folder AS f JOIN chain AS c ON f.id = c.parent_id
                )
                SELECT b.folder_id IS NOT NULL, b.category,
                    (SELECT group_concat(hex(name), '.')
                     FROM (SELECT name FROM chain ORDER BY depth DESC))
                FROM bookmark AS b WHERE b.kind = ?1 AND b.item_id = ?2
                """)
        try statement.bind(kind, at: 1)
        try statement.bind(itemID, at: 2)
        defer { statement.reset() }
        guard try statement.step() else { return nil }
        if statement.int64(at: 0) != 0 { return statement.optionalText(at: 2) ?? "" }
        return statement.optionalText(at: 1).map { SyncIdent.make([$0]) } ?? ""
    }

    /// A bookmark field's column as a value: text a string, an integer an int.
    private static func fieldValue(_ column: SQLiteValue) -> PreferenceValue? {
        switch column {
        case .text(let text): .string(text)
        case .integer(let integer): Int(exactly: integer).map { .int($0) }
        default: nil
        }
    }

    private static func fieldColumn(_ value: PreferenceValue?) -> SQLiteValue {
        switch value {
        case .string(let text): .text(text)
        case .int(let integer): .integer(Int64(integer))
        default: .null
        }
    }

    func pendingCount() throws -> Int {
        // Preferences, bookmarks and tags, not fields.
        try connection.scalar(
            Int.self,
            sql:
                "SELECT count(*) FROM (SELECT DISTINCT entity, ident FROM sync_field WHERE pending = 1)"
        ) ?? 0
    }

    func confirm(_ changes: [SyncChange], ceilingMilliseconds: Int64) throws {
        let statement = try connection.cachedStatement(
            literal: """
                UPDATE sync_field SET pending = 0
                WHERE entity = ? AND ident = ? AND field = ? AND clock = ?
                """)
        for change in changes {
            try statement.execute(arguments: [
                change.entity.rawValue, change.ident, change.field, change.clock,
            ])
        }
        if let newest = changes.compactMap({ HybridClock($0.clock) }).max(by: Self.precedes) {
            try see(newest, ceiling: ceilingMilliseconds)
        }
    }

    private static func precedes(_ left: HybridClock, _ right: HybridClock) -> Bool {
        (left.milliseconds, left.counter) < (right.milliseconds, right.counter)
    }

    /// Remembers a clock the hub confirmed, unless it is past `ceiling` (by default the bound
    /// of the wall clock: a change refused for its rules is confirmed too, with whatever clock
    /// it had).
    private func see(_ clock: HybridClock, ceiling: Int64? = nil) throws {
        try connection.execute(
            sql: """
                UPDATE sync_state SET seen_ms = ?1, seen_counter = ?2
                WHERE ?1 <= coalesce(?3, \(Self.wallClock) + ?4)
                    AND (?1 > seen_ms OR (?1 = seen_ms AND ?2 > seen_counter))
                """,
            arguments: [
                clock.milliseconds, clock.counter, ceiling,
                SyncValidation.defaultClockBoundMilliseconds,
            ])
    }

    func field(_ address: SyncAddress) throws -> SyncFieldState? {
        let statement = try connection.cachedStatement(
            literal: """
                SELECT clock, present, value, pending FROM sync_field
                WHERE entity = ? AND ident = ? AND field = ?
                """)
        try statement.bind(address.entity.rawValue, at: 1)
        try statement.bind(address.ident, at: 2)
        try statement.bind(address.field, at: 3)
        defer { statement.reset() }
        guard try statement.step() else { return nil }
        return SyncFieldState(
            change: SyncChange(
                entity: address.entity, ident: address.ident, field: address.field,
                clock: statement.text(at: 0), present: statement.int64(at: 1) != 0,
                value: Self.fieldValue(statement.value(at: 2))),
            isPending: statement.int64(at: 3) != 0)
    }

    func setField(_ change: SyncChange, isPending: Bool) throws {
        let statement = try connection.cachedStatement(
            literal: """
                INSERT OR REPLACE INTO sync_field
                    (entity, ident, field, clock, present, value, pending)
                VALUES (?, ?, ?, ?, ?, ?, ?)
                """)
        try statement.execute(arguments: [
            change.entity.rawValue, change.ident, change.field, change.clock, change.present,
            change.entity == .bookmark ? Self.fieldColumn(change.value) : nil, isPending,
        ])
    }

    func bookmarkFields(kind: String, itemID: String) throws -> [String: SyncChange] {
        let ident = SyncIdent.make([kind, itemID])
        let rows = try connection.rows(
            sql: """
                SELECT field, clock, present, value FROM sync_field
                WHERE entity = 'bookmark' AND ident = ?
                """, arguments: [ident])
        var fields: [String: SyncChange] = [:]
        for row in rows {
            guard let field = row.get(0, as: String.self) else { continue }
            fields[field] = SyncChange(
                entity: .bookmark, ident: ident, field: field, clock: row.get(1) ?? "",
                present: row.get(2, as: Bool.self) ?? false, value: Self.fieldValue(row[3]))
        }
        return fields
    }

    func bookmarkTags(kind: String, itemID: String, since: String) throws -> [String] {
        // Every tag's ident starts with the bookmark's and a dot; hex digits sort before "G".
        let prefix = SyncIdent.make([kind, itemID]) + "."
        let rows = try connection.rows(
            sql: """
                SELECT ident FROM sync_field
                WHERE entity = 'tag' AND present = 1 AND ident >= ?1 AND ident < ?1 || 'G'
                    AND clock >= ?2
                """, arguments: [prefix, since])
        return rows.compactMap { row in
            row.get(0, as: String.self).flatMap(SyncIdent.parts).flatMap {
                $0.count == 3 ? $0[2] : nil
            }
        }.sorted(by: ExactName.precedes)
    }

    func markMisaligned(kind: String) throws {
        try connection.execute(
            sql: "INSERT OR IGNORE INTO sync_misaligned (kind) VALUES (?)", arguments: [kind])
    }

    func bookmarkPositions(kind: String) throws -> [ExactName: Int] {
        let prefix = SyncIdent.make([kind]) + "."
        let rows = try connection.rows(
            sql: """
                SELECT ident, value FROM sync_field
                WHERE entity = 'bookmark' AND ident >= ?1 AND ident < ?1 || 'G'
                    AND field = 'position'
                """, arguments: [prefix])
        var positions: [ExactName: Int] = [:]
        for row in rows {
            if let parts = row.get(0, as: String.self).flatMap(SyncIdent.parts), parts.count == 2,
                let position = row.get(1, as: Int.self)
            {
                positions[ExactName(parts[1])] = position
            }
        }
        return positions
    }

    func setApplying(_ isApplying: Bool) throws {
        try connection.execute(
            sql: "UPDATE sync_state SET applying = ?", arguments: [isApplying])
    }

    func receive(clock: HybridClock, ceilingMilliseconds ceiling: Int64) throws {
        // Past every clock seen, whatever the wall clock says (a device whose clock is behind
        // writes after what it pulled); never past the ceiling: a clock the hub would refuse
        // does not drag this device along.
        let statement = try connection.cachedStatement(
            literal: """
                UPDATE sync_state SET
                    clock_counter = CASE
                        WHEN min(?1, ?3) > clock_ms THEN CASE WHEN ?1 <= ?3 THEN ?2 ELSE 0 END
                        WHEN ?1 = clock_ms THEN max(clock_counter, ?2)
                        ELSE clock_counter END,
                    clock_ms = max(clock_ms, min(?1, ?3))
                """)
        try statement.execute(arguments: [clock.milliseconds, clock.counter, ceiling])
        try see(clock, ceiling: ceiling)
    }

    /// The device's wall clock in milliseconds since 1970, as the stamping trigger reads it.
    private static let wallClock = """
        (CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER) + clock_skew_ms)
        """

    func wallClockMilliseconds() throws -> Int64 {
        try connection.scalar(Int64.self, sql: "SELECT \(Self.wallClock) FROM sync_state") ?? 0
    }

    func setClockAhead(milliseconds: Int64?, at date: Date) throws {
        try connection.execute(
            sql: "UPDATE sync_state SET clock_ahead_ms = ?, clock_checked_at = ?",
            arguments: [milliseconds, date])
    }

    func setClockOffset(milliseconds: Int64?) throws {
        try connection.execute(
            sql: "UPDATE sync_state SET clock_offset_ms = ?", arguments: [milliseconds])
    }

    func restamp(_ changes: [SyncChange], boundMilliseconds: Int64) throws {
        // The clock goes back to the wall clock, but not below a clock the hub confirmed
        // that this device has seen (pulled, or its own change taken), nor below one still in
        // its fields (within the bound: a change refused for breaking a rule is confirmed
        // too, with whatever clock it had). The next stamp is past it.
        let floor = try connection.rows(
            sql: """
                SELECT seen_ms, seen_counter, \(Self.wallClock),
                    (SELECT max(substr(clock, 1, 22)) FROM sync_field WHERE pending = 0
                        AND CAST(substr(clock, 1, 15) AS INTEGER) <= \(Self.wallClock) + ?)
                FROM sync_state
                """, arguments: [boundMilliseconds]
        ).first
        var clock = (milliseconds: floor?.get(2, as: Int64.self) ?? 0, counter: Int64(0))
        if let seen = floor?.get(0, as: Int64.self), let counter = floor?.get(1, as: Int64.self),
            (seen, counter) > clock
        {
            clock = (seen, counter)
        }
        if let text = floor?.get(3, as: String.self), let kept = HybridClock(text + "-x"),
            (kept.milliseconds, kept.counter) > clock
        {
            clock = (kept.milliseconds, kept.counter)
        }
        try connection.execute(
            sql: "UPDATE sync_state SET clock_ms = ?, clock_counter = ?",
            arguments: [clock.milliseconds, clock.counter])
        try stampAgain(changes)
    }

    func restamp(_ changes: [SyncChange], above clock: HybridClock) throws {
        try connection.execute(
            sql: """
                UPDATE sync_state SET
                    clock_counter = CASE WHEN ?1 > clock_ms THEN ?2
                        WHEN ?1 = clock_ms THEN max(clock_counter, ?2) ELSE clock_counter END,
                    clock_ms = max(clock_ms, ?1)
                """, arguments: [clock.milliseconds, clock.counter])
        try stampAgain(changes)
    }

    /// Stamps changes again with the next clock readings, as the capture does, still pending.
    private func stampAgain(_ changes: [SyncChange]) throws {
        let statement = try connection.cachedStatement(
            literal: """
                INSERT INTO sync_capture (entity, ident, field, present, value)
                SELECT entity, ident, field, present, value FROM sync_field
                WHERE entity = ? AND ident = ? AND field = ? AND clock = ?
                """)
        for change in changes {
            try statement.execute(arguments: [
                change.entity.rawValue, change.ident, change.field, change.clock,
            ])
        }
    }

    func recordRefused(_ change: SyncChange, direction: String, reason: String, at date: Date)
        throws
    {
        try connection.execute(
            sql: """
                INSERT INTO sync_refused (direction, entity, ident, field, clock, reason,
                    recorded_at)
                VALUES (?, ?, ?, ?, ?, ?, ?)
                """,
            arguments: [
                direction, change.entity.rawValue, change.ident, change.field, change.clock,
                reason, date,
            ])
    }

    func refusals(limit: Int) throws -> [SyncRefusal] {
        let rows = try connection.rows(
            sql: """
                SELECT direction, entity, ident, field, clock, reason, recorded_at
                FROM sync_refused ORDER BY id DESC LIMIT ?
                """, arguments: [limit])
        return rows.compactMap { row in
            guard
                let direction = row.get(0, as: String.self).flatMap(
                    SyncRefusal.Direction.init(rawValue:))
            else { return nil }
            return SyncRefusal(
                direction: direction,
                subject: SyncRefusal.subject(
                    entity: row.get(1) ?? "", ident: row.get(2) ?? "", field: row.get(3) ?? ""),
                clock: MessageText.shown(row.get(4) ?? ""),
                reason: MessageText.escaped(row.get(5) ?? ""),
                recordedAt: row.get(6, as: Double.self).map(Self.date) ?? Date())
        }
    }

    func refusedCount() throws -> Int {
        try connection.scalar(Int.self, sql: "SELECT count(*) FROM sync_refused") ?? 0
    }

    func leave(keepingStamps: Bool) throws {
        guard keepingStamps else {
            try SyncCapture.drop(connection)
            for table in [
                "sync_state", "sync_field", "sync_conflict", "sync_refused", "sync_misaligned",
                "sync_device_name",
            ] {
                try connection.execute(sql: "DELETE FROM \(table)")
            }
            return
        }
        try connection.execute(
            sql: """
                UPDATE sync_state SET is_left = 1, left_account = account, hub = NULL,
                    account = NULL, last_error = NULL, last_error_at = NULL,
                    last_error_exit = NULL, clock_ahead_ms = NULL, ca_file = NULL
                WHERE is_left = 0
                """)
        for table in ["sync_conflict", "sync_refused", "sync_device_name"] {
            try connection.execute(sql: "DELETE FROM \(table)")
        }
    }

    func recordConflict(lost: SyncChange, wonBy clock: String, at date: Date) throws {
        let column: SQLiteValue =
            lost.entity == .preference
            ? lost.value?.storedValue ?? .null : Self.fieldColumn(lost.value)
        try connection.execute(
            sql: """
                INSERT INTO sync_conflict (entity, ident, field, lost_clock, lost_present,
                    lost_type, lost_value, won_clock, recorded_at)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
                """,
            arguments: [
                lost.entity.rawValue, lost.ident, lost.field, lost.clock, lost.present,
                lost.value?.type.rawValue, column, clock, date,
            ])
    }

    func conflicts(limit: Int) throws -> [SyncConflict] {
        let rows = try connection.rows(
            sql: """
                SELECT entity, ident, field, lost_clock, lost_present, lost_type, lost_value,
                    won_clock, recorded_at
                FROM sync_conflict ORDER BY id DESC LIMIT ?
                """, arguments: [limit])
        var names = try deviceNames()
        if let own = try connection.rows(
            sql: "SELECT device_id, device_name FROM sync_state WHERE is_left = 0"
        ).first, let id = own.get(0, as: String.self), let name = own.get(1, as: String.self) {
            names[id] = name
        }
        return rows.compactMap { row in
            guard let entity = row.get(0, as: String.self).flatMap(SyncEntity.init(rawValue:)),
                let ident = row.get(1, as: String.self),
                let parts = SyncIdent.parts(ident),
                let field = row.get(2, as: String.self),
                let lost = row.get(3, as: String.self).flatMap(HybridClock.init),
                let won = row.get(7, as: String.self).flatMap(HybridClock.init)
            else { return nil }
            let subject: SyncConflict.Subject
            let value: PreferenceValue?
            switch (entity, parts.count) {
            case (.preference, 2):
                subject = .preference(suite: parts[0], key: parts[1])
                value = row.get(5, as: String.self).flatMap {
                    PreferenceValue(storedType: $0, value: row[6])
                }
            case (.bookmark, 2):
                subject = .bookmark(kind: parts[0], itemID: parts[1], field: field)
                value = Self.fieldValue(row[6])
            case (.tag, 3):
                subject = .tag(kind: parts[0], itemID: parts[1], tag: parts[2])
                value = nil
            default: return nil
            }
            return SyncConflict(
                subject: subject, lostValue: value,
                lostPresent: row.get(4, as: Bool.self) ?? false, lostDevice: lost.device,
                lostAt: Date(timeIntervalSince1970: Double(lost.milliseconds) / 1000),
                lostDeviceName: names[lost.device], wonDevice: won.device,
                wonDeviceName: names[won.device],
                recordedAt: row.get(8, as: Double.self).map(Self.date) ?? Date())
        }
    }

    func setDeviceName(_ name: String?) throws {
        try connection.execute(
            sql: "UPDATE sync_state SET device_name = ?, name_sent = 0 WHERE is_left = 0",
            arguments: [name.map(SQLiteValue.text) ?? .null])
    }

    func deviceName() throws -> String? {
        try connection.scalar(
            String.self, sql: "SELECT device_name FROM sync_state WHERE is_left = 0")
    }

    func unsentDeviceName() throws -> String?? {
        let rows = try connection.rows(
            sql: "SELECT device_name FROM sync_state WHERE is_left = 0 AND name_sent = 0")
        guard let row = rows.first else { return nil }
        return .some(row.get(0, as: String.self))
    }

    func markDeviceNameSent() throws {
        try connection.execute(sql: "UPDATE sync_state SET name_sent = 1 WHERE is_left = 0")
    }

    func deviceNames() throws -> [String: String] {
        var names: [String: String] = [:]
        for row in try connection.rows(sql: "SELECT device, name FROM sync_device_name") {
            if let device = row.get(0, as: String.self), let name = row.get(1, as: String.self) {
                names[device] = name
            }
        }
        return names
    }

    func setDeviceNames(_ names: [String: String]) throws {
        try connection.execute(sql: "DELETE FROM sync_device_name")
        for (device, name) in names {
            try connection.execute(
                sql: "INSERT INTO sync_device_name (device, name) VALUES (?, ?)",
                arguments: [device, name])
        }
    }

    func conflictCount() throws -> Int {
        try connection.scalar(Int.self, sql: "SELECT count(*) FROM sync_conflict") ?? 0
    }

    func setCursor(_ cursor: Int64, pulledAt date: Date) throws {
        try connection.execute(
            sql: "UPDATE sync_state SET cursor = max(cursor, ?), last_pull = ?",
            arguments: [cursor, date])
    }

    func recordPush(at date: Date) throws {
        try connection.execute(sql: "UPDATE sync_state SET last_push = ?", arguments: [date])
    }

    func recordError(_ message: String?) throws {
        try connection.execute(
            sql: """
                UPDATE sync_state SET last_error = ?1,
                    last_error_at = CASE WHEN ?1 IS NULL THEN NULL ELSE ?2 END,
                    last_error_exit = NULL
                """, arguments: [message, Date().timeIntervalSince1970])
    }

    func setCertificateAuthorityFile(_ path: String?) throws {
        try connection.execute(
            sql: "UPDATE sync_state SET ca_file = ? WHERE is_left = 0", arguments: [path])
    }

    func recordErrorExitCode(_ code: Int) throws {
        try connection.execute(
            sql: "UPDATE sync_state SET last_error_exit = ? WHERE last_error IS NOT NULL",
            arguments: [code])
    }

    func isDeviceLocal(suite: String, key: String) throws -> Bool {
        try connection.scalar(
            Int.self,
            sql: """
                SELECT device_local FROM preference_declaration WHERE suite = ? AND key = ?
                """, arguments: [suite, key]) == 1
    }

    func setClockSkew(milliseconds: Int64) throws {
        try connection.execute(
            sql: "UPDATE sync_state SET clock_skew_ms = ?", arguments: [milliseconds])
    }
}
