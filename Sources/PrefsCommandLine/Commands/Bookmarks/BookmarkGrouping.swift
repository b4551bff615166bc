import PrefsKit

/// How `bookmark list --group-by` groups.
enum BookmarkGrouping: String, CaseIterable, Sendable {
    /// By the folder's name (the app's category).
    case category
    /// By the whole folder path.
    case folder
}
