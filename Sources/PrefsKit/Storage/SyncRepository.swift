#if canImport(FoundationEssentials) && !PREFS_FULL_FOUNDATION
    import FoundationEssentials
#else
    import Foundation
#endif

/// What syncs: a preference's value, a field of a bookmark, a tag on a bookmark.
package enum SyncEntity: String, Sendable, Hashable, Codable {
    case preference, bookmark, tag
}

/// The newest change of one synced field that a device or the hub knows: what it belongs to,
/// its hybrid logical clock, and the value.
package struct SyncChange: Sendable, Hashable {
    package var entity: SyncEntity
    /// ``SyncIdent`` text of `suite, key`, `kind, item id` or `kind, item id, tag`.
    package var ident: String
    /// `value` for a preference, `present` for a tag; `exists`, `title`, `url`, `category`,
    /// `note` or `position` for a bookmark.
    package var field: String
    /// ``HybridClock`` text: ordered as text.
    package var clock: String
    /// False for a tombstone: a removed preference, a deleted bookmark, a removed tag.
    package var present: Bool
    /// A preference's value; a bookmark field as a string or an int (nil: no value).
    package var value: PreferenceValue?

    package init(
        entity: SyncEntity, ident: String, field: String, clock: String, present: Bool,
        value: PreferenceValue?
    ) {
        self.entity = entity
        self.ident = ident
        self.field = field
        self.clock = clock
        self.present = present
        self.value = value
    }

    /// The field it changes, whatever the change.
    package var address: SyncAddress { SyncAddress(entity: entity, ident: ident, field: field) }

    /// Whether `other` leaves the field as this change does (both remove it, or both give it
    /// the same value): when one loses to the other, nothing is lost, and no conflict is kept.
    package func saysTheSame(as other: SyncChange?) -> Bool {
        guard let other, present == other.present else { return false }
        return !present || value == other.value
    }
}

/// One synced field.
package struct SyncAddress: Sendable, Hashable {
    package var entity: SyncEntity
    package var ident: String
    package var field: String
}

/// A field as this device knows it: its newest change, and whether the hub has yet to
/// confirm it.
package struct SyncFieldState: Sendable, Hashable {
    package var change: SyncChange
    package var isPending: Bool
}

/// This device's sync settings and bookkeeping.
package struct SyncDeviceState: Sendable, Hashable {
    package var deviceID: String
    package var hub: String?
    package var account: String?
    /// The hub's number of the last change pulled.
    package var cursor: Int64
    package var lastPush: Date?
    package var lastPull: Date?
    package var lastError: String?
    /// When the last failed round failed.
    package var lastErrorAt: Date?
    /// The exit code the command line gave that failure, when it was the command line's.
    package var lastErrorExitCode: Int?
    /// The private CA a sync server's certificate was last verified with (a file's path).
    package var certificateAuthorityFile: String?
    /// How far ahead of the hub's clock this device's was when the hub last refused a
    /// change for it; nil when the last push was taken.
    package var clockAheadMilliseconds: Int64?
    /// The device's clock as its file keeps it (`milliseconds-counter`): at least as new as
    /// every stamp the file holds.
    package var clock: String?
    /// How far the device's clock was from the hub's at the last round, beyond the
    /// tolerance (positive: ahead); nil within it.
    package var clockOffsetMilliseconds: Int64?

    package init(
        deviceID: String, hub: String?, account: String?, cursor: Int64, lastPush: Date?,
        lastPull: Date?, lastError: String?, clockAheadMilliseconds: Int64? = nil
    ) {
        self.deviceID = deviceID
        self.hub = hub
        self.account = account
        self.cursor = cursor
        self.lastPush = lastPush
        self.lastPull = lastPull
        self.lastError = lastError
        self.clockAheadMilliseconds = clockAheadMilliseconds
    }
}

/// What a round reads of a device's sync state, outside a write: nothing here changes the
/// file (``DatabaseReader/sync``).
package protocol SyncDeviceReading {
    /// Nil until sync is turned on.
    func deviceState() throws -> SyncDeviceState?
    /// Pending changes, preferences with their current values, oldest stamps first.
    func pendingChanges(limit: Int) throws -> [SyncChange]
    /// Preferences, bookmarks and tags with changes pending (not fields).
    func pendingCount() throws -> Int
    func field(_ address: SyncAddress) throws -> SyncFieldState?
    /// This device's wall clock (with any skew set for tests), in milliseconds since 1970.
    func wallClockMilliseconds() throws -> Int64
    /// The name still to send to the hub (`.some(nil)`: the name was taken away); nil when
    /// the hub has the current one.
    func unsentDeviceName() throws -> String??
    /// The names of the account's devices, as the last round read them from the hub.
    func deviceNames() throws -> [String: String]
    /// Whether a preference is declared to stay on this device.
    func isDeviceLocal(suite: String, key: String) throws -> Bool
}

/// The device side of sync as a round needs it, kept in the device's database file: the
/// clock and the field stamps its triggers write, the cursor, what the round records (the
/// losing sides of conflicts, refusals). Calls are made with the database lock held, writes
/// inside a transaction. What `sync status` and the listings read is
/// ``SyncDeviceRecords``.
package protocol SyncRepository: SyncDeviceReading, SyncBookmarkFields {
    /// Turns sync on: from now on every change of a synced field is stamped and pending;
    /// what the database holds already is stamped with the time it was last written, and
    /// removals made before with the time they were made. A device that left keeps the
    /// stamps it has (true is returned); joining another account, they are all pending.
    @discardableResult
    func start(deviceID: String, hub: String, account: String) throws -> Bool
    /// Remembers the hub and account (never credentials).
    func setHub(_ hub: String, account: String) throws
    /// Marks changes as confirmed by the hub, unless the field changed again since; the
    /// newest of their clocks up to `ceilingMilliseconds` is one this device has seen.
    func confirm(_ changes: [SyncChange], ceilingMilliseconds: Int64) throws
    /// Records a change as this device's knowledge of its field.
    func setField(_ change: SyncChange, isPending: Bool) throws
    /// Changes applied from now until `false` are not captured for sync.
    func setApplying(_ isApplying: Bool) throws
    /// Moves the clock past one seen in a pulled change, whatever the wall clock says, up to
    /// `ceilingMilliseconds` (the hub's clock and its bound: what the hub would have taken).
    func receive(clock: HybridClock, ceilingMilliseconds: Int64) throws
    /// Notes how far ahead of the hub this device's clock was found (nil: not ahead).
    func setClockAhead(milliseconds: Int64?, at date: Date) throws
    /// Notes how far the device's clock is from the hub's (nil: within the tolerance).
    func setClockOffset(milliseconds: Int64?) throws
    /// Brings the clock back to the wall clock (not below what the hub confirmed) and stamps
    /// the changes again, still pending: after the hub refused them for a clock that was
    /// ahead and is right again.
    func restamp(_ changes: [SyncChange], boundMilliseconds: Int64) throws
    /// Moves the clock past `clock` (the newest the hub took from this device) and stamps the
    /// changes again, still pending: after the hub found them stamped at or below it with
    /// other content, the sign of a file restored from an older copy whose clock came back.
    func restamp(_ changes: [SyncChange], above clock: HybridClock) throws
    /// Keeps a change that was refused: pushed and not taken by the hub, or pulled and not
    /// applied here.
    func recordRefused(_ change: SyncChange, direction: String, reason: String, at date: Date)
        throws
    /// Turns sync off: the device keeps its data and forgets its hub. `keepingStamps`: it
    /// keeps its clock and stamps and goes on stamping its writes, for when it joins again
    /// (`DeviceSync.leave()`); false: as though it had never synced (a first round that
    /// failed).
    func leave(keepingStamps: Bool) throws
    /// Keeps the losing side of a conflict.
    func recordConflict(lost: SyncChange, wonBy clock: String, at date: Date) throws
    /// The hub has this device's name.
    func markDeviceNameSent() throws
    /// Keeps the names of the account's devices read from the hub.
    func setDeviceNames(_ names: [String: String]) throws
    /// Names this device (nil: no name), to be sent at the next round.
    func setDeviceName(_ name: String?) throws
    /// Adds to the clock's wall-clock milliseconds (tests of devices whose clock is wrong).
    func setClockSkew(milliseconds: Int64) throws
    func setCursor(_ cursor: Int64, pulledAt date: Date) throws
    func recordPush(at date: Date) throws
    func recordError(_ message: String?) throws
    /// Notes the exit code the command line gave the recorded error.
    func recordErrorExitCode(_ code: Int) throws
    /// Keeps the private CA's file a sync server was reached with (nil: the system's).
    func setCertificateAuthorityFile(_ path: String?) throws
}

/// The hub side of sync: the newest change of every field of one account, numbered.
package protocol SyncHub: AnyObject {
    /// The account whose changes it holds.
    var account: String { get }
    /// The account's notification channel: a random token made once on the hub, the same on
    /// its replicas and different on any other database ("" where the account has none).
    var channel: String { get }
    /// Stores the changes newer than the hub's, in one transaction; pushing the same changes
    /// again takes none and loses none. `cursor` is how far the device has pulled: a change
    /// it overwrites that was numbered after it is one the device never saw, a conflict.
    func push(_ changes: [SyncChange], device: String, cursor: Int64) throws -> SyncPushOutcome
    /// Changes numbered after the cursor, in order, with their numbers.
    func pull(after cursor: Int64, limit: Int) throws -> [(change: SyncChange, sequence: Int64)]
    /// Notes how far a device pulled. Nothing is collected: a removal's tombstone (its
    /// field's identity and clock, no payload) stays, so that every change pushed later
    /// meets the clock it must beat (docs/sync.md, "The merge rule").
    func report(device: String, cursor: Int64) throws
    /// How far ahead of the hub's clock a change may be stamped, in milliseconds.
    func clockBound() throws -> Int64
    /// A round's pull in one snapshot: the changes after the cursor but those of the
    /// round's own push (`leavingOut`, its number), which the device holds. `deviceClock`
    /// is the device's clock as its file keeps it: older than a clock the hub took from the
    /// device, the file was restored from an older copy, and the pull starts at 0.
    /// A page holds whole pushes, within `limit` (nil: every change after the cursor);
    /// ``SyncPull/hasMore`` says that another page follows.
    func pullRound(
        after cursor: Int64, device: String, leavingOut: Int64?, deviceClock: String?,
        limit: SyncPullLimit?
    ) throws -> SyncPull
    /// How far the account's changes reach on this server: the highest number of its
    /// changes. An account's pushes commit in the order of their numbers, so a server (a
    /// standby replaying the hub) that reached a number holds every change numbered up to it.
    func position() throws -> Int64
    /// Forgets a device that left.
    func forget(device: String) throws
    /// Names a device of the account (nil: takes its name away).
    func setName(_ name: String?, device: String) throws
    /// The names of the account's devices that have one, by device id.
    func deviceNames() throws -> [String: String]
}

/// How much one page of a pull carries: whole pushes (a push is never split between
/// pages), at most `changes` changes and about `bytes` bytes of values, but at least one
/// push whatever its size.
package struct SyncPullLimit: Sendable, Equatable {
    package var changes: Int
    package var bytes: Int

    package init(changes: Int, bytes: Int) {
        self.changes = max(1, changes)
        self.bytes = max(1, bytes)
    }

    /// What a device asks for and a server gives at most: 10,000 changes, 8 MiB.
    package static let standard = SyncPullLimit(changes: 10_000, bytes: 8 << 20)

    /// The smaller of two limits, each of its parts.
    package func within(_ other: SyncPullLimit) -> SyncPullLimit {
        SyncPullLimit(changes: min(changes, other.changes), bytes: min(bytes, other.bytes))
    }

    /// The number of the last push of a page, from the pushes after the cursor in order
    /// (their numbers, how many changes each holds and the bytes of their values); nil
    /// when every push given fits.
    package func lastPush(of pushes: [(number: Int64, changes: Int, bytes: Int)]) -> Int64? {
        var changes = 0
        var bytes = 0
        for (index, push) in pushes.enumerated() {
            changes += push.changes
            bytes += push.bytes
            if index > 0, changes > self.changes || bytes > self.bytes {
                return pushes[index - 1].number
            }
        }
        return nil
    }
}

/// What a round pulls.
package struct SyncPull: Sendable {
    package var rows: [(change: SyncChange, sequence: Int64)]
    /// The highest number after the cursor, rows left out of the pull included (nil: none).
    package var through: Int64?
    /// ``SyncHub/position()`` in the pull's snapshot, on a hub opened read-only (a
    /// standby); 0 on others.
    package var position: Int64 = 0
    /// The hub took a clock from this device newer than the device's own: its file is an
    /// older copy (a backup restored, a snapshot), and this pull is every change.
    package var isRestored = false
    /// The hub's clock when it answered, in milliseconds since 1970 (nil: not read).
    package var hubMilliseconds: Int64?
    /// More changes wait after ``through``: this was a page, and the device pulls again.
    package var hasMore = false

    /// Every field, as stored.
    package init(
        rows: [(change: SyncChange, sequence: Int64)],
        through: Int64? = nil,
        position: Int64 = 0,
        hubMilliseconds: Int64? = nil
    ) {
        self.rows = rows
        self.through = through
        self.position = position
        self.hubMilliseconds = hubMilliseconds
    }
}

/// What the hub did with pushed changes.
package struct SyncPushOutcome: Sendable {
    /// How many preferences, bookmarks and tags it took changes of (newer than what it had).
    package var accepted: Int
    /// Those it refused for a newer change of the same field, with that change's clock.
    package var lost: [(change: SyncChange, winner: String)]
    /// The hub's rows that those lost to, with their values: the device takes them at once,
    /// also one it pulled before (a pull would not bring it again).
    package var winners: [SyncChange] = []
    /// Changes of other devices it replaced that the pushing device had not pulled yet: the
    /// losing sides of conflicts, with the clock of the change that replaced each.
    package var overwritten: [(change: SyncChange, winner: String)]
    /// Those it refused for breaking the rules (``SyncValidation``), with why.
    package var refused: [(change: SyncChange, reason: String)]
    /// Those it refused for a clock further ahead of its own than the bound allows.
    package var clockAhead: [SyncChange]
    /// The hub's clock when it checked them, in milliseconds since 1970.
    package var hubClock: Int64
    /// The bound it checked them against, in milliseconds.
    package var clockBound: Int64 = SyncValidation.defaultClockBoundMilliseconds
    /// The number the push's stored changes took; nil when it stored none.
    package var sequence: Int64?
    /// Those it did not take for being stamped at or below ``pushedClock`` with other
    /// content than the hub took under that clock: the pushing file is an older copy whose
    /// clock came back (a backup restored). The device stamps them again above it.
    package var stale: [SyncChange] = []
    /// The newest clock the hub took from the pushing device before this push.
    package var pushedClock: String?

    package init(
        accepted: Int, lost: [(change: SyncChange, winner: String)],
        overwritten: [(change: SyncChange, winner: String)],
        refused: [(change: SyncChange, reason: String)] = [], clockAhead: [SyncChange] = [],
        hubClock: Int64 = 0
    ) {
        self.accepted = accepted
        self.lost = lost
        self.overwritten = overwritten
        self.refused = refused
        self.clockAhead = clockAhead
        self.hubClock = hubClock
    }
}

/// What a device's sync keeps for people to read, outside a round: the refusals and the
/// losing sides of conflicts, counted and listed, and the device's own name. Reads only.
package protocol SyncDeviceRecords {
    /// How many changes were refused.
    func refusedCount() throws -> Int
    /// The changes refused, newest first.
    func refusals(limit: Int) throws -> [SyncRefusal]
    /// The losing sides of conflicts, newest first.
    func conflicts(limit: Int) throws -> [SyncConflict]
    /// How many losing sides are kept.
    func conflictCount() throws -> Int
    /// This device's name.
    func deviceName() throws -> String?
}
