import PrefsKit

/// A bookmark named by its item or by its id.
enum BookmarkReference: Equatable, Sendable {
    case item(kind: String, itemID: String)
    case id(Int64)
}
