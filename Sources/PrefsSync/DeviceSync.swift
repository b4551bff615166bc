import PrefsKit
import Synchronization

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

/// Sync of one device's preferences and bookmarks with the other devices of its account,
/// through a hub.
///
/// The hub is a PostgreSQL database: PrefsPostgreSQL opens it
/// (`DeviceSync(database:hub:account:hubOptions:)`). Without it, a device's own sync state
/// still reads here: ``status(of:)``, ``conflicts(of:limit:)``, ``refusals(of:limit:)`` and
/// ``leave(_:)``.
///
/// Each device keeps its own database file and works offline. Once sync is turned on
/// (its first round), every write to a synced field, from the
/// app, the command line or another process, is stamped with the device's hybrid logical
/// clock and kept pending until the hub confirms it. A round (``sync()``) pushes the
/// pending changes in one hub transaction, then pulls everyone else's from its cursor.
///
/// Merging is deterministic: the newest clock wins per preference key and per bookmark
/// field; a bookmark is the same on every device by kind and item id; tags are added and
/// removed one by one; removals and deletes are tombstones that win or lose like writes.
/// Only values that were set sync: a key that reads its default has nothing to send.
/// Selections (and so the walkthrough's page) stay on the device, and so does a key
/// declared with ``PreferenceDeclaration/isDeviceLocal``. The losing side of every
/// conflict is kept (``conflicts(of:limit:)``).
///
/// ```swift
/// import PrefsPostgreSQL
///
/// let sync = try DeviceSync(database: database, hub: "postgresql://hub.example/prefs")
/// let report = try sync.sync()
/// ```
public final class DeviceSync: Sendable {
    /// The device's database.
    public let database: AppDatabase
    /// The hub, opened for the account; nil for a hub reached through a sync server
    /// (`prefs-server`, over HTTPS).
    public let hub: AppDatabase?
    /// The account this device syncs.
    public let account: String
    /// This device's id, in every clock it stamps.
    public let deviceID: String
    /// Told of every push before it is sent: the device's id and the changes. Tests hold
    /// a reference model of the hub to it.
    package static let pushTap = Mutex<(@Sendable (String, [SyncChange]) -> Void)?>(nil)

    /// The hub as the device file keeps it (no password).
    private let hubToRemember: String
    /// How the hub and its standby are reached.
    private let connector: any SyncHubConnector
    /// The hub's side of sync, called under the hub database's lock.
    private let hubHandle: SyncHubHandle
    /// Where pulls may read (a standby of the hub), opened at the first pull that may use it.
    private let standby = Mutex<SyncHubHandle?>(nil)

    /// Opens the hub for the account through `connector` (PrefsPostgreSQL's opens a
    /// server's database). Sync is turned on for the device (and the device bound to the
    /// account) by the first round that completes: a first round that fails (a wrong
    /// account, a hub that refuses) leaves the device as it was.
    ///
    /// - Parameters:
    ///   - database: The device's database file (SQLite).
    ///   - connector: How the hub is reached.
    ///   - account: The account to sync (a service role must name one); nil for the
    ///     account the device synced before, or the role's own.
    /// - Throws: ``SyncError`` when the device is not a file, or already syncs another
    ///   account; ``DatabaseError`` when the hub cannot be opened.
    package init(
        database: AppDatabase, connector: any SyncHubConnector, account: String?
    ) throws {
        self.database = database
        let remembered = try database.withReader { state in
            try Self.repository(state).deviceState()
        }
        if let previous = remembered?.account, let account, previous != account {
            throw SyncError.otherAccount(device: previous, requested: account)
        }
        let handle = try connector.openHub(account: account ?? remembered?.account)
        let hubAccount = try handle { $0.account }
        if let previous = remembered?.account, previous != hubAccount {
            throw SyncError.otherAccount(device: previous, requested: hubAccount)
        }
        self.hub = handle.database
        self.hubHandle = handle
        self.connector = connector
        self.account = hubAccount
        hubToRemember = connector.remembered
        deviceID = remembered?.deviceID ?? Self.newDeviceID()
        // Sync is turned on (the device bound to the account) by the first round that
        // completes, never before: see `sync()`.
        if remembered != nil {
            try database.withWriter { state in
                try Self.repository(state).setHub(hubToRemember, account: hubAccount)
            }
        }
    }

    /// The hub and account the device synced with last time.
    ///
    /// - Throws: ``SyncError/notConfigured`` when it never synced.
    package static func rememberedHub(of database: AppDatabase) throws -> (
        hub: String, account: String?
    ) {
        guard let state = try status(of: database), let hub = state.hub else {
            throw SyncError.notConfigured
        }
        return (hub, state.account)
    }

    private static func repository(_ writer: DatabaseWriter) throws -> any SyncRepository {
        guard let sync = writer.sync else { throw SyncError.notADeviceFile }
        return sync
    }

    private static func repository(_ reader: DatabaseReader) throws -> any SyncDeviceReading {
        guard let sync = reader.sync else { throw SyncError.notADeviceFile }
        return sync
    }

    private static func records(_ reader: DatabaseReader) throws -> any SyncDeviceRecords {
        guard let records = reader.syncRecords else { throw SyncError.notADeviceFile }
        return records
    }

    private static func newDeviceID() -> String {
        var generator = SystemRandomNumberGenerator()
        return (0..<8).map { _ in
            let byte = UInt8.random(in: 0...255, using: &generator)
            return (byte < 16 ? "0" : "") + String(byte, radix: 16)
        }.joined()
    }

    // MARK: - Rounds

    /// One round: pushes every pending change, then pulls every change after the cursor.
    ///
    /// - Returns: What moved and what is left.
    /// - Throws: ``DatabaseError/busy(path:)`` (exit 75) when the hub cannot be reached;
    ///   changes not confirmed stay pending for the next round.
    @discardableResult
    public func sync() throws -> SyncReport {
        // A device that left and joins again (`rejoined`) kept stamping its writes meanwhile.
        let (isFirstRound, rejoined) = try database.withWriter { state in
            let sync = try Self.repository(state)
            guard try sync.deviceState() == nil else { return (false, false) }
            return (
                true, try sync.start(deviceID: deviceID, hub: hubToRemember, account: account)
            )
        }
        do {
            var pushed = try push()
            // Stamped again after a clock that was ahead came right, or above the hub's record
            // of this device: they go now (a change stamped again for the one may be stamped
            // again for the other).
            for _ in 0..<2 where pushed.restamped > 0 {
                let again = try push()
                pushed.restamped = again.restamped
                pushed.restored = pushed.restored || again.restored
                pushed.accepted += again.accepted
                pushed.conflicts += again.conflicts
                pushed.refused += again.refused
                pushed.waitingForClock = again.waitingForClock
                pushed.clockAhead = again.clockAhead
                pushed.sequence = again.sequence ?? pushed.sequence
            }
            let pull = try pull(
                mayReadStandby: !isFirstRound, pushed: pushed.sequence,
                everything: pushed.restored)
            try exchangeNames()
            try database.withWriter { state in try Self.repository(state).recordError(nil) }
            return SyncReport(
                pushed: pushed.accepted, pulled: pull.pulled,
                conflicts: pushed.conflicts + pull.conflicts, pending: try pendingCount(),
                refused: pushed.refused + pull.refused,
                waitingForClock: pushed.waitingForClock,
                clockAheadMilliseconds: pushed.clockAhead,
                pulledFromStandby: pull.fromStandby, restored: pull.restored || pushed.restored,
                clockOffsetMilliseconds: pull.clockOffset)
        } catch {
            if isFirstRound {
                // Nothing is bound by a round that did not complete.
                try? database.withWriter { state in
                    try Self.repository(state).leave(keepingStamps: rejoined)
                }
                throw error
            }
            let message = String(describing: error)
            try? database.withWriter { state in try Self.repository(state).recordError(message) }
            throw error
        }
    }

    /// Turns sync off for this device: it keeps its data and forgets the hub; the hub
    /// forgets the device. It keeps the clock of every field, and goes on stamping its own
    /// writes (without sending them), so that when it syncs again (with any account, as a
    /// new device) what it only pulled keeps the clock it came with and what changed
    /// meanwhile, removals included, goes with the time it was made.
    ///
    /// - Returns: Whether the hub could be told (the device left in any case).
    @discardableResult
    public func leave() throws -> Bool {
        let toldHub = (try? withHub { try $0.forget(device: deviceID) }) != nil
        try database.withWriter { state in try Self.repository(state).leave(keepingStamps: true) }
        return toldHub
    }

    /// Sends this device's name when it changed, and keeps the names of the account's
    /// devices for conflict listings (written only when they changed).
    private func exchangeNames() throws {
        let (unsent, known) = try database.withReader { state in
            let sync = try Self.repository(state)
            return (try sync.unsentDeviceName(), try sync.deviceNames())
        }
        if let unsent {
            try withHub { try $0.setName(unsent, device: deviceID) }
            try database.withWriter { state in try Self.repository(state).markDeviceNameSent() }
        }
        let names = try withHub { try $0.deviceNames() }
        if names != known {
            try database.withWriter { state in try Self.repository(state).setDeviceNames(names) }
        }
    }

    /// Names this device (nil takes its name away): conflict listings on the account's
    /// devices show it beside its id from their next round on. The name goes to the hub at
    /// this device's next round.
    ///
    /// - Throws: ``SyncError/invalidDeviceName(_:)`` for a name that is not 1 to 64
    ///   code points without control characters; ``SyncError/notConfigured`` for a device
    ///   that never synced; ``DatabaseError``.
    public static func setName(_ name: String?, of database: AppDatabase) throws {
        if let name {
            // Counted as the hub counts (code points, not what Swift calls characters): a
            // name the hub's check refused would fail every later round.
            guard (1...64).contains(name.unicodeScalars.count),
                !name.unicodeScalars.contains(where: { $0.properties.generalCategory == .control })
            else { throw SyncError.invalidDeviceName(name) }
        }
        try database.withWriter { state in
            let sync = try repository(state)
            guard try sync.deviceState() != nil else { throw SyncError.notConfigured }
            try repository(state).setDeviceName(name)
        }
    }

    /// This device's name (``setName(_:of:)``); nil when it has none or never synced.
    public static func name(of database: AppDatabase) throws -> String? {
        try database.withReader { state in try records(state).deviceName() }
    }

    /// Runs hub calls under the hub database's lock, with the engine's errors in their
    /// documented form.
    private func withHub<T>(_ body: (any SyncHub) throws -> T) throws -> T {
        try hubHandle(body)
    }

    /// What a push did.
    private struct PushResult {
        var accepted = 0
        var conflicts = 0
        var refused = 0
        /// Changes kept pending because the hub found this device's clock ahead.
        var waitingForClock = 0
        /// How far ahead, when it still is.
        var clockAhead: Int64?
        /// Changes stamped again because the clock came right, or above what the hub took
        /// from this device.
        var restamped = 0
        /// Whether the hub found this file older than what the device pushed.
        var restored = false
        /// The number the hub gave the push's changes; nil when it stored none.
        var sequence: Int64?
    }

    /// Pushes every pending change in one hub transaction, so that the other devices
    /// never see part of a local transaction; the outbox is cleared once it committed.
    /// A change the hub refuses for its rules is recorded and no longer pending; one it
    /// refuses for a clock too far ahead stays pending, and the device says so (or, when
    /// its clock is right again, stamps it again).
    private func push() throws -> PushResult {
        let (pending, cursor) = try database.withReader { state in
            let sync = try Self.repository(state)
            return (
                try sync.pendingChanges(limit: Int.max), try sync.deviceState()?.cursor ?? 0
            )
        }
        guard !pending.isEmpty else { return PushResult() }
        if let tap = Self.pushTap.withLock({ $0 }) { tap(deviceID, pending) }
        let outcome = try withHub { try $0.push(pending, device: deviceID, cursor: cursor) }
        let now = Date()
        return try database.withWriter { state in
            let sync = try Self.repository(state)
            var result = PushResult(
                accepted: outcome.accepted, conflicts: 0, refused: outcome.refused.count)
            result.sequence = outcome.sequence
            // Kept pending: those refused for a clock ahead, and those to stamp again above
            // what the hub took from this device (a restored file's).
            let waiting = Set((outcome.clockAhead + outcome.stale).map(\.address))
            // What the hub took is within its bound of its clock: seen, however far behind
            // this device's wall clock is (a later stamp goes past it).
            let ceiling = SyncValidation.clockCeiling(
                hubMilliseconds: outcome.hubClock > 0 ? outcome.hubClock : nil,
                bound: outcome.clockBound, wall: try sync.wallClockMilliseconds())
            try sync.confirm(
                waiting.isEmpty ? pending : pending.filter { !waiting.contains($0.address) },
                ceilingMilliseconds: ceiling)
            // A side that loses to the same value loses nothing: no conflict.
            let pushed = Dictionary(pending.map { ($0.address, $0) }) { $1 }
            let won = Dictionary(outcome.winners.map { ($0.address, $0) }) { $1 }
            for (change, winner) in outcome.lost
            where !change.saysTheSame(as: won[change.address]) {
                try sync.recordConflict(lost: change, wonBy: winner, at: now)
                result.conflicts += 1
            }
            for (change, winner) in outcome.overwritten
            where !change.saysTheSame(as: pushed[change.address]) {
                try sync.recordConflict(lost: change, wonBy: winner, at: now)
                result.conflicts += 1
            }
            // What they lost to is applied now (its conflict is kept above): the device
            // may have pulled it before, and a pull would not bring it again.
            if !outcome.winners.isEmpty {
                var merge = SyncMerge(state: state, sync: sync)
                merge.ceilingMilliseconds = ceiling
                _ = try merge.apply(outcome.winners)
            }
            // Stamped at or below the newest clock the hub took from this device, with other
            // content: this file is an older copy whose clock came back. Stamped again above
            // it, they go in this round (docs/sync.md, "A restore").
            if let pushedClock = outcome.pushedClock.flatMap(HybridClock.init),
                !outcome.stale.isEmpty
            {
                try sync.restamp(outcome.stale, above: pushedClock)
                result.restamped += outcome.stale.count
                result.restored = true
            }
            for (change, reason) in outcome.refused {
                try sync.recordRefused(change, direction: "push", reason: reason, at: now)
            }
            if outcome.clockAhead.isEmpty {
                try sync.setClockAhead(milliseconds: nil, at: now)
            } else if try sync.wallClockMilliseconds() <= outcome.hubClock + outcome.clockBound {
                // The stamps were ahead, the clock is not (any more): stamp them again.
                try sync.restamp(outcome.clockAhead, boundMilliseconds: outcome.clockBound)
                try sync.setClockAhead(milliseconds: nil, at: now)
                result.restamped += outcome.clockAhead.count
            } else {
                let ahead = try sync.wallClockMilliseconds() - outcome.hubClock
                try sync.setClockAhead(milliseconds: ahead, at: now)
                result.waitingForClock = outcome.clockAhead.count
                result.clockAhead = ahead
            }
            try sync.recordPush(at: now)
            return result
        }
    }

    /// Pulls every change after the cursor and applies them in one device transaction
    /// with the new cursor: a round cut short applies none of them, and a push of another
    /// device is never applied in part. `pushed`: the number of this round's push.
    /// How far a device's clock may be from the hub's before a round and `sync status` say
    /// so.
    public static let clockToleranceMilliseconds: Int64 = 2_000

    private func pull(mayReadStandby: Bool, pushed: Int64?, everything: Bool) throws -> (
        pulled: Int, conflicts: Int, refused: Int, fromStandby: Bool, restored: Bool,
        clockOffset: Int64?
    ) {
        guard let device = try database.withReader({ try Self.repository($0).deviceState() }) else {
            return (0, 0, 0, false, false, nil)
        }
        // A file the push found restored pulls every change, as one the pull finds so.
        var cursor = everything ? 0 : device.cursor
        let seen = max(cursor, pushed ?? 0)
        let before = try database.withReader { try Self.repository($0).wallClockMilliseconds() }
        let fromStandby =
            mayReadStandby
            ? pullFromStandby(after: cursor, holding: seen, pushed: pushed, clock: device.clock)
            : nil
        let (pulled, bound) =
            try fromStandby
            ?? withHub {
                (
                    try $0.pullRound(
                        after: cursor, device: deviceID, leavingOut: pushed,
                        deviceClock: device.clock),
                    try $0.clockBound()
                )
            }
        let after = try database.withReader { try Self.repository($0).wallClockMilliseconds() }
        // The device's clock against the hub's, read halfway through the round trip; reported
        // beyond the tolerance and half the trip (the reading's own uncertainty).
        let offset = pulled.hubMilliseconds.flatMap { hub -> Int64? in
            let difference = (before + after) / 2 - hub
            let tolerance = Self.clockToleranceMilliseconds + (after - before) / 2
            return abs(difference) > tolerance ? difference : nil
        }
        try database.withWriter { try Self.repository($0).setClockOffset(milliseconds: offset) }
        let rows = pulled.rows
        // Past the round's own push too, which the pull leaves out.
        let through = pulled.through ?? rows.last?.sequence
        var outcome = SyncMerge.Outcome()
        if !rows.isEmpty {
            outcome = try database.withWriter { state in
                let sync = try Self.repository(state)
                var merge = SyncMerge(state: state, sync: sync)
                merge.ceilingMilliseconds = SyncValidation.clockCeiling(
                    hubMilliseconds: pulled.hubMilliseconds, bound: bound, wall: after)
                let outcome = try merge.apply(rows.map(\.change))
                if let through { try sync.setCursor(through, pulledAt: Date()) }
                return outcome
            }
        }
        if let through { cursor = max(cursor, through) }
        try withHub { try $0.report(device: deviceID, cursor: cursor) }
        let pulledAt = Date()
        try database.withWriter { state in
            try Self.repository(state).setCursor(cursor, pulledAt: pulledAt)
        }
        return (
            outcome.applied, outcome.conflicts, outcome.refused, fromStandby != nil,
            pulled.isRestored, offset
        )
    }

    /// The pull from the hub options' `standbyTarget` once it holds the account up to
    /// `seen` (what the device pulled or pushed): nil when there is no standby, it did not
    /// catch up within the wait, it cannot be reached, or the pull must list every field.
    /// A standby replays the hub's commits in order and an account's pushes commit in the
    /// order of their numbers, so a standby at `seen` lacks nothing the device has seen:
    /// the pull can move the cursor only over what the standby holds, and never hands the
    /// device a state older than its own push.
    private func pullFromStandby(
        after cursor: Int64, holding seen: Int64, pushed: Int64?, clock: String?
    ) -> (SyncPull, Int64)? {
        guard let wait = connector.standbyWaitMilliseconds else { return nil }
        return standby.withLock { (opened: inout SyncHubHandle?) -> (SyncPull, Int64)? in
            do {
                let standby = try opened ?? connector.openStandby(account: account)
                opened = standby
                // A replica of this hub, or nothing: another database (a mistyped string,
                // another service's hub) has other numbers for the account, and its changes
                // would be merged here and pushed to the hub. The account's channel token,
                // made once on the hub and replicated with it, tells them apart.
                let hubChannel = try withHub { $0.channel }
                return try standby { hub -> (SyncPull, Int64)? in
                    guard !hubChannel.isEmpty, hub.channel == hubChannel else { return nil }
                    let deadline = ContinuousClock.now + .milliseconds(wait)
                    while try hub.position() < seen {
                        guard ContinuousClock.now < deadline else { return nil }
                        usleep(5_000)
                    }
                    let pulled = try hub.pullRound(
                        after: cursor, device: deviceID, leavingOut: pushed, deviceClock: clock)
                    // Another host of a multi-host string may have answered the pull.
                    guard pulled.position >= seen else { return nil }
                    return (pulled, try hub.clockBound())
                }
            } catch {
                // Passed over: the hub answers instead.
                opened = nil
                return nil
            }
        }
    }

    /// Rounds until the task is cancelled, or until the hub says "no": one soon after each
    /// local write (looked for every `interval`), one whenever the hub says another device
    /// pushed, and one every `idleRounds` intervals in any case. A failed round is reported
    /// and tried again after a wait that doubles with each failure in a row (from
    /// `interval`, with jitter, up to `maximumBackoff`), so a hub that is down or busy is not
    /// hammered. A refusal that retrying cannot change (a revoked device token, a login the
    /// hub refuses: ``isRefusal(_:)``) is reported, and the watch ends.
    ///
    /// - Parameters:
    ///   - interval: How often to look for local writes and the hub's notifications.
    ///   - idleRounds: Intervals after which a round runs even with nothing seen.
    ///   - maximumBackoff: The longest wait after failed rounds.
    ///   - onRound: Told of every round, and of every failure.
    public func watch(
        interval: Duration = .milliseconds(50), idleRounds: Int = 100,
        maximumBackoff: Duration = .seconds(60),
        onRound: @Sendable (Result<SyncReport, any Error>) -> Void = { _ in }
    ) async {
        var hubToken = hubHandle.changeToken()
        var idle = idleRounds
        var failures = 0
        var generator = SystemRandomNumberGenerator()
        while !Task.isCancelled {
            let token = hubHandle.changeToken()
            let isPending = ((try? pendingCount()) ?? 0) > 0
            idle -= 1
            if isPending || token != hubToken || idle <= 0 {
                idle = idleRounds
                hubToken = token
                let outcome = Result { try sync() }
                onRound(outcome)
                if case .failure(let error) = outcome {
                    if Self.isRefusal(error) { return }
                    failures += 1
                    try? await Task.sleep(
                        for: Self.backoff(
                            after: failures, interval: interval, maximum: maximumBackoff,
                            using: &generator))
                    continue
                }
                failures = 0
            }
            try? await Task.sleep(for: interval)
        }
    }

    /// Whether a round's error is the hub's "no" for this device, which retrying cannot
    /// change: a device token the server does not know or revoked, a login or role the hub
    /// refuses (exit 77).
    public static func isRefusal(_ error: any Error) -> Bool {
        if case .permissionDenied? = (error as? DatabaseError)?.kind { return true }
        return false
    }

    /// The wait after `failures` failed rounds in a row: `interval` doubled for each, at most
    /// `maximum`, the upper half of it drawn at random so that devices a server turned away
    /// together do not come back together.
    static func backoff(
        after failures: Int, interval: Duration, maximum: Duration,
        using generator: inout some RandomNumberGenerator
    ) -> Duration {
        let doubled = interval * (1 << min(max(failures, 1), 20))
        let cap = min(doubled, maximum)
        return cap * Double.random(in: 0.5...1, using: &generator)
    }

    // MARK: - Status

    private func pendingCount() throws -> Int {
        try database.withReader { state in try Self.repository(state).pendingCount() }
    }

    /// The device's sync state; nil when sync was never turned on.
    ///
    /// - Throws: ``SyncError/notADeviceFile`` for a database on a server.
    public static func status(of database: AppDatabase) throws -> SyncStatus? {
        try database.withReader { state in
            let sync = try repository(state)
            guard let device = try sync.deviceState() else { return nil }
            return SyncStatus(
                deviceID: device.deviceID, hub: device.hub, account: device.account,
                cursor: device.cursor, lastPush: device.lastPush, lastPull: device.lastPull,
                pending: try sync.pendingCount(), conflicts: try records(state).conflictCount(),
                lastError: device.lastError, refused: try records(state).refusedCount(),
                clockAheadMilliseconds: device.clockAheadMilliseconds,
                clockOffsetMilliseconds: device.clockOffsetMilliseconds)
        }
    }

    /// Notes why a round failed before it could run (the hub or server unreachable, a token
    /// or login refused), as a failed round notes it: `sync status` shows it until a round
    /// completes. Nothing for a device that never synced.
    package static func recordFailure(_ error: any Error, of database: AppDatabase) {
        try? database.withWriter { state in
            let sync = try repository(state)
            guard try sync.deviceState() != nil else { return }
            try sync.recordError(String(describing: error))
        }
    }

    /// Turns sync off for a device without reaching its hub (see ``leave()``).
    public static func leave(_ database: AppDatabase) throws {
        try database.withWriter { state in try repository(state).leave(keepingStamps: true) }
    }

    /// The changes sync refused on this device's way, pushed or pulled, newest first.
    public static func refusals(of database: AppDatabase, limit: Int = 100) throws
        -> [SyncRefusal]
    {
        try database.withReader { state in try records(state).refusals(limit: limit) }
    }

    /// The losing sides of conflicts this device saw, newest first.
    public static func conflicts(of database: AppDatabase, limit: Int = 100) throws
        -> [SyncConflict]
    {
        try database.withReader { state in try records(state).conflicts(limit: limit) }
    }

    /// Shifts this device's wall clock by an amount, as a device whose clock is wrong
    /// would read it (for tests of clock skew).
    package func setClockSkew(milliseconds: Int64) throws {
        try database.withWriter { state in
            try Self.repository(state).setClockSkew(milliseconds: milliseconds)
        }
    }
}

/// What one round of sync did.
public struct SyncReport: Sendable, Hashable {
    /// Preferences, bookmarks and tags the hub took changes of (a bookmark counts once,
    /// however many of its fields changed).
    public var pushed: Int
    /// Preferences, bookmarks and tags changed here by other devices (or the server).
    public var pulled: Int
    /// Conflicts decided in this round (their losing sides are kept).
    public var conflicts: Int
    /// Local changes still waiting for the hub.
    public var pending: Int
    /// Changes refused in this round, pushed (the hub's rules) or pulled (this device's);
    /// each is recorded, and the rest of the round went on.
    public var refused: Int = 0
    /// Local changes the hub would not take because this device's clock is ahead of the
    /// hub's by more than the bound; they stay pending until the clock is right.
    public var waitingForClock: Int = 0
    /// How far ahead of the hub's clock this device's is, when the hub said so.
    public var clockAheadMilliseconds: Int64?
    /// Whether the pull read the hub options' `standbyTarget` (false: the hub).
    public var pulledFromStandby = false
    /// Whether the hub found this device's file older than what the device had pushed (a
    /// backup or snapshot restored): the round pulled every change again, so that what the
    /// device pushed after the copy was made is back.
    public var restored = false
    /// How far this device's clock is from the hub's, when further than
    /// ``DeviceSync/clockToleranceMilliseconds`` (positive: ahead). Behind, its writes lose to
    /// older ones made elsewhere; ahead within the bound, they win over later ones.
    public var clockOffsetMilliseconds: Int64?
}

/// A device's sync state.
public struct SyncStatus: Sendable, Hashable {
    /// The id in every clock the device stamps.
    public var deviceID: String
    /// The hub's connection string, without any password.
    public var hub: String?
    /// The account synced.
    public var account: String?
    /// The hub's number of the last change pulled.
    public var cursor: Int64
    /// When a push last reached the hub.
    public var lastPush: Date?
    /// When a pull last completed.
    public var lastPull: Date?
    /// Local changes waiting for the hub.
    public var pending: Int
    /// Losing sides of conflicts kept.
    public var conflicts: Int
    /// Why the last round failed; nil after a round that completed.
    public var lastError: String?
    /// Changes refused so far, pushed or pulled.
    public var refused: Int = 0
    /// How far ahead of the hub's clock this device's was at the last push, when the hub
    /// refused changes for it; nil when it is not.
    public var clockAheadMilliseconds: Int64?
    /// How far this device's clock was from the hub's at the last round, when further than
    /// ``DeviceSync/clockToleranceMilliseconds`` (positive: ahead); nil within it.
    public var clockOffsetMilliseconds: Int64? = nil
}

/// Why sync cannot start.
public enum SyncError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The device's database is on a server: a device keeps a file.
    case notADeviceFile
    /// The hub is a file, not a PostgreSQL server.
    case hubIsNotAServer(target: String)
    /// The standby that pulls may read (the hub options' `standbyTarget`) is a file,
    /// not a PostgreSQL server.
    case standbyIsNotAServer(target: String)
    /// The device syncs one account; another was asked for.
    case otherAccount(device: String, requested: String)
    /// The device never synced, and no hub was named.
    case notConfigured
    /// A device name that is not 1 to 64 code points without control characters.
    case invalidDeviceName(String)
    /// A sync server's address a token may not be sent to: not `https://` (`http://` only
    /// to this machine), or with credentials in it.
    case insecureServer(String)

    /// One line for the user.
    public var description: String {
        switch self {
        case .notADeviceFile:
            "a device's database must be a file; the server is the hub"
        case .hubIsNotAServer(let target):
            "the hub must be a PostgreSQL connection string, not '\(target)'"
        case .standbyIsNotAServer(let target):
            "the standby (standbyTarget) must be a PostgreSQL connection string, not"
                + " '\(target)'"
        case .otherAccount(let device, let requested):
            "this device syncs the account '\(device)', not '\(requested)'"
        case .notConfigured:
            "this device has never synced: name the hub"
        case .insecureServer(let address):
            "a device token goes only to an https:// sync server (http:// only on this"
                + " machine), with no credentials in its address: not"
                + " '\(MessageText.shown(address))'"
        case .invalidDeviceName(let name):
            "the device name '\(MessageText.shown(name))' must be 1 to 64 characters (code"
                + " points) without control characters"
        }
    }
}
