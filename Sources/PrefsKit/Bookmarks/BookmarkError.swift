#if canImport(FoundationEssentials) && !PREFS_FULL_FOUNDATION
    import FoundationEssentials
#else
    import Foundation
#endif

/// Why a bookmark operation was refused.
public enum BookmarkError: Error, Equatable, Sendable, CustomStringConvertible {
    /// No bookmark with this id.
    case notFound(id: Int64)
    /// No bookmark of this item.
    case itemNotFound(kind: String, itemID: String)
    /// A position outside `0..<count` of the kind.
    case positionOutOfRange(position: Int, count: Int, kind: String)
    /// A field is empty or holds control characters, or a search is empty.
    case invalid(String)
    /// An import file is malformed; nothing was imported.
    case malformedImport(String)

    /// The problem, in one line.
    public var description: String {
        switch self {
        case .notFound(let id): "No bookmark with id \(id)"
        case .itemNotFound(let kind, let itemID): "No bookmark of \(kind) '\(itemID)'"
        case .positionOutOfRange(let position, let count, let kind):
            "Position \(position) is out of range for \(kind) bookmarks (valid: 0...\(max(0, count - 1)))"
        case .invalid(let reason): reason
        case .malformedImport(let reason): "Malformed import: \(reason)"
        }
    }
}
