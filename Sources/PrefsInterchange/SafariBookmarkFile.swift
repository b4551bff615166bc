import PrefsKit

#if canImport(FoundationEssentials) && !PREFS_FULL_FOUNDATION
    import FoundationEssentials
#else
    import Foundation
#endif

/// Safari's `Bookmarks.plist` (binary or XML): a tree of `WebBookmarkTypeList` folders
/// (`Title`, `Children`) and `WebBookmarkTypeLeaf` links (`URLString`,
/// `URIDictionary.title`); the reading list keeps its preview text as the note.
///
/// Safari's own folders take the names its HTML export gives them: `BookmarksBar` is
/// "Favorites", `BookmarksMenu` "Bookmarks Menu", `com.apple.ReadingList` "Reading List";
/// the History proxy is not a bookmark and is left out.
enum SafariBookmarkFile {
    static func document(reading bytes: [UInt8]) throws(InterchangeError) -> BookmarkImportDocument
    {
        let root: PreferenceValue
        do {
            root = try PropertyList.decode(Data(bytes))
        } catch {
            throw InterchangeError(
                reason: "not a readable property list: \(error.reason)", location: error.location)
        }
        guard case .dictionary(let top) = root,
            top["WebBookmarkType"] == .string("WebBookmarkTypeList")
        else {
            throw InterchangeError(
                reason:
                    "a property list that is not Safari's Bookmarks.plist (no WebBookmarkTypeList at"
                    + " its root)")
        }
        var document = BookmarkImportDocument(format: .safari)
        var depths: [Int] = []
        var stack: [(PreferenceValue, Int?, String)] = []
        for (index, child) in children(of: top).enumerated().reversed() {
            stack.append((child, nil, "Children[\(index)]"))
        }
        while let (node, folder, place) = stack.popLast() {
            guard case .dictionary(let item) = node else { continue }
            switch string(item["WebBookmarkType"]) {
            case "WebBookmarkTypeList":
                let title = string(item["Title"]) ?? ""
                let name = BookmarkImportDocument.cleaned(Self.names[title] ?? title).text
                let index = document.addFolder(
                    BookmarkImportDocument.Folder(
                        name: name.isEmpty ? "Untitled folder" : name, parent: folder),
                    depths: &depths, place: .path(place))
                for (offset, child) in children(of: item).enumerated().reversed() {
                    stack.append((child, index, "\(place).Children[\(offset)]"))
                }
            case "WebBookmarkTypeLeaf":
                let href = (string(item["URLString"]) ?? "").trimmingWhitespace
                let (url, reasonToSkip) = BookmarkImportDocument.linkURL(href)
                if let reason = reasonToSkip {
                    document.skipped.append(.init(place: .path(place), message: reason))
                    continue
                }
                var title = ""
                if case .dictionary(let uri)? = item["URIDictionary"] {
                    title = string(uri["title"]) ?? ""
                }
                var note: String?
                var createdAt: Date?
                if case .dictionary(let reading)? = item["ReadingList"] {
                    note = string(reading["PreviewText"]).map(BookmarkImportDocument.cleanedNote)
                    if case .date(let date)? = reading["DateAdded"] { createdAt = date }
                }
                document.links.append(
                    BookmarkImportDocument.Link(
                        draft: BookmarkDraft(
                            kind: NetscapeBookmarkFile.browserKind, itemID: href,
                            title: BookmarkImportDocument.cleaned(title).text,
                            url: url, note: note?.isEmpty == false ? note : nil),
                        folder: folder, createdAt: createdAt, place: .path(place)))
            case "WebBookmarkTypeProxy":
                continue
            default:
                document.skipped.append(
                    .init(place: .path(place), message: "an entry of unknown type"))
            }
        }
        return document
    }

    /// The names Safari shows for its own folders.
    private static let names = [
        "BookmarksBar": "Favorites", "BookmarksMenu": "Bookmarks Menu",
        "com.apple.ReadingList": "Reading List",
    ]

    private static func children(of item: [String: PreferenceValue]) -> [PreferenceValue] {
        if case .array(let list)? = item["Children"] { list } else { [] }
    }

    private static func string(_ value: PreferenceValue?) -> String? {
        if case .string(let text)? = value { text } else { nil }
    }
}
