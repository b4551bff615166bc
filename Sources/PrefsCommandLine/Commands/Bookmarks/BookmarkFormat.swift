import PrefsKit

/// File formats of bookmark import and export.
enum BookmarkFormat: String, CaseIterable, Sendable {
    case json
    /// The Netscape bookmark file of browsers.
    case html
}
