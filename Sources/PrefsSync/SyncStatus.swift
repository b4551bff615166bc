import PrefsKit

#if canImport(FoundationEssentials) && !PREFS_FULL_FOUNDATION
    import FoundationEssentials
#else
    import Foundation
#endif

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
    /// When the last round failed; nil after a round that completed.
    public var lastErrorAt: Date? = nil
    /// The exit code `prefs sync` gave that failure (75: try again; 77: refused), when the
    /// command line ran the round; nil otherwise.
    public var lastErrorExitCode: Int? = nil
    /// Changes refused so far, pushed or pulled.
    public var refused: Int = 0
    /// How far ahead of the hub's clock this device's was at the last push, when the hub
    /// refused changes for it; nil when it is not.
    public var clockAheadMilliseconds: Int64?
    /// How far this device's clock was from the hub's at the last round, when further than
    /// ``DeviceSync/clockToleranceMilliseconds`` (positive: ahead); nil within it.
    public var clockOffsetMilliseconds: Int64? = nil
}
