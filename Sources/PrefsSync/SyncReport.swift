import PrefsKit

#if canImport(FoundationEssentials) && !PREFS_FULL_FOUNDATION
    import FoundationEssentials
#else
    import Foundation
#endif

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
