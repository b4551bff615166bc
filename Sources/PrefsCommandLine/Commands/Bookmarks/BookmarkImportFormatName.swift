import PrefsKit

/// The names of the formats `bookmark import --format` reads.
enum BookmarkImportFormatName: String, CaseIterable, ArgumentValue {
    case json, html, chromium, firefox, safari

    var format: BookmarkImportDocument.Format {
        switch self {
        case .json: .json
        case .html: .html
        case .chromium: .chromium
        case .firefox: .firefox
        case .safari: .safari
        }
    }
}
