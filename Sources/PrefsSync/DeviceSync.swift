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

    /// How much a page of a pull carries (the server may give less). Tests make it small,
    /// so that their schedules pull page by page.
    package let pullLimit = Mutex(SyncPullLimit.standard)

    /// The hub as the device file keeps it (no password).
    let hubToRemember: String
    /// How the hub and its standby are reached.
    let connector: any SyncHubConnector
    /// The hub's side of sync, called under the hub database's lock.
    let hubHandle: SyncHubHandle
    /// Where pulls may read (a standby of the hub), opened at the first pull that may use it.
    let standby = Mutex<SyncHubHandle?>(nil)

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

    static func repository(_ writer: DatabaseWriter) throws -> any SyncRepository {
        guard let sync = writer.sync else { throw SyncError.notADeviceFile }
        return sync
    }

    static func repository(_ reader: DatabaseReader) throws -> any SyncDeviceReading {
        guard let sync = reader.sync else { throw SyncError.notADeviceFile }
        return sync
    }

    static func records(_ reader: DatabaseReader) throws -> any SyncDeviceRecords {
        guard let records = reader.syncRecords else { throw SyncError.notADeviceFile }
        return records
    }

    static func newDeviceID() -> String {
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
            // Through a sync server that takes it, the push, the pull's first page and the
            // names come in one request; the rest (a second push, more pages) one by one.
            let round = try roundInOneRequest()
            var pushed = try round?.pushed ?? push()
            var page = round?.page
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
                // The round's page was read before this push: the pull asks again.
                page = nil
            }
            if pushed.restored { page = nil }
            let pull = try pull(
                mayReadStandby: !isFirstRound, pushed: pushed.sequence,
                everything: pushed.restored, firstPage: page)
            try exchangeNames(known: round?.names)
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
    /// `known`: the names as a round in one request brought them (asked for otherwise).
    func exchangeNames(known given: [String: String]? = nil) throws {
        let (unsent, known) = try database.withReader { state in
            let sync = try Self.repository(state)
            return (try sync.unsentDeviceName(), try sync.deviceNames())
        }
        if let unsent {
            try withHub { try $0.setName(unsent, device: deviceID) }
            try database.withWriter { state in try Self.repository(state).markDeviceNameSent() }
        }
        // A name sent just now is not in what the round brought.
        let brought = unsent == nil ? given : nil
        let names = try brought ?? withHub { try $0.deviceNames() }
        if names != known {
            try database.withWriter { state in try Self.repository(state).setDeviceNames(names) }
        }
    }

    /// Whether a device name is one the hub takes: 1 to 64 code points (counted as the hub
    /// counts them, not as Swift's characters), no control character.
    package static func isAcceptable(deviceName name: String) -> Bool {
        (1...64).contains(name.unicodeScalars.count)
            && !name.unicodeScalars.contains(where: { $0.properties.generalCategory == .control })
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
            // A name the hub's check refused would fail every later round.
            guard isAcceptable(deviceName: name) else { throw SyncError.invalidDeviceName(name) }
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
    func withHub<T>(_ body: (any SyncHub) throws -> T) throws -> T {
        try hubHandle(body)
    }
}
