#if canImport(FoundationEssentials) && !PREFS_FULL_FOUNDATION
    import FoundationEssentials
#else
    import Foundation
#endif

/// The losing side of a sync conflict, kept on the device that saw both sides: what was
/// written, by which device and when, and the clock of the change that won.
public struct SyncConflict: Sendable, Hashable {
    /// What lost: a preference value, a bookmark field or a tag.
    public enum Subject: Sendable, Hashable {
        /// A preference of a suite.
        case preference(suite: String, key: String)
        /// A field of the bookmark of an item (`title`, `url`, `category`, `note`,
        /// `position`, or `exists` for the bookmark itself).
        case bookmark(kind: String, itemID: String, field: String)
        /// A tag on the bookmark of an item.
        case tag(kind: String, itemID: String, tag: String)
    }

    /// What lost.
    public var subject: Subject
    /// The losing value; nil when the losing change removed or deleted.
    public var lostValue: PreferenceValue?
    /// Whether the losing change set (true) or removed (false).
    public var lostPresent: Bool
    /// The device that wrote the losing change.
    public var lostDevice: String
    /// When the losing change was written, by its device's clock.
    public var lostAt: Date
    /// The name the losing device was given (`prefs sync name`), as the last round read it
    /// from the hub; nil when it has none (or is the server, `hub`).
    public var lostDeviceName: String? = nil
    /// The device whose change won.
    public var wonDevice: String
    /// The name the winning device was given; nil when it has none.
    public var wonDeviceName: String? = nil
    /// When this device recorded the conflict.
    public var recordedAt: Date
}
