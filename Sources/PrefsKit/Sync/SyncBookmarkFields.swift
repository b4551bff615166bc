#if canImport(FoundationEssentials) && !PREFS_FULL_FOUNDATION
    import FoundationEssentials
#else
    import Foundation
#endif

/// Where the merged fields of bookmarks are read: a device's sync fields, the hub's.
package protocol SyncBookmarkFields {
    /// The fields of a bookmark (`exists`, `title`...), by name.
    func bookmarkFields(kind: String, itemID: String) throws -> [String: SyncChange]
    /// The tags a bookmark has by its sync stamps: present, and stamped at or after `since`,
    /// the clock of the bookmark's newest removal (its `removed`; "" when it was never
    /// removed). Two additions of one bookmark keep both tag sets; one added again after a
    /// removal has none of the tags from before it (docs/sync.md, "Tags").
    func bookmarkTags(kind: String, itemID: String, since: String) throws -> [String]
    /// The merged positions of a kind's bookmarks, by item id.
    func bookmarkPositions(kind: String) throws -> [ExactName: Int]
    /// Notes that a kind's row positions differ from its merged ones (after a renumber): the
    /// next local write that moves positions in it stamps every position first.
    func markMisaligned(kind: String) throws
}
