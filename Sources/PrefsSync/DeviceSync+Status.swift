import PrefsKit

#if canImport(FoundationEssentials) && !PREFS_FULL_FOUNDATION
    import FoundationEssentials
#else
    import Foundation
#endif

extension DeviceSync {
    func pendingCount() throws -> Int {
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
                lastError: device.lastError, lastErrorAt: device.lastErrorAt,
                lastErrorExitCode: device.lastErrorExitCode,
                refused: try records(state).refusedCount(),
                clockAheadMilliseconds: device.clockAheadMilliseconds,
                clockOffsetMilliseconds: device.clockOffsetMilliseconds)
        }
    }

    /// Notes why a round failed before it could run (the hub or server unreachable, a token
    /// or login refused), as a failed round notes it: `sync status` shows it until a round
    /// completes. Nothing for a device that never synced.
    /// `exitCode`: the one the command line exits with for it, shown by `sync status`.
    package static func recordFailure(
        _ error: any Error, of database: AppDatabase, exitCode: Int? = nil
    ) {
        try? database.withWriter { state in
            let sync = try repository(state)
            guard try sync.deviceState() != nil else { return }
            try sync.recordError(String(describing: error))
            if let exitCode { try sync.recordErrorExitCode(exitCode) }
        }
    }

    /// The private CA's file kept for the device's sync server (see
    /// ``rememberCertificateAuthority(_:of:)``); nil when none is.
    package static func certificateAuthorityFile(of database: AppDatabase) throws -> String? {
        try database.withReader { state in try repository(state).deviceState() }?
            .certificateAuthorityFile
    }

    /// Keeps the private CA's file a round reached the sync server with, beside its
    /// address, for the next rounds. Nothing for a device that never synced.
    package static func rememberCertificateAuthority(_ path: String, of database: AppDatabase)
        throws
    {
        try database.withWriter { state in
            let sync = try repository(state)
            guard let device = try sync.deviceState(), device.certificateAuthorityFile != path
            else { return }
            try sync.setCertificateAuthorityFile(path)
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
