import PrefsKit

#if canImport(FoundationEssentials) && !PREFS_FULL_FOUNDATION
    import FoundationEssentials
#else
    import Foundation
#endif

/// Chromium's `Bookmarks` file (Chrome, Brave, Edge, Vivaldi): JSON with `roots`
/// (`bookmark_bar`, `other`, `synced`), each a folder of `children` of type `url` or
/// `folder`; dates are microseconds since 1601 as strings.
///
/// The tree is read as Chromium's own HTML export lays it out: the bookmarks bar and the
/// mobile bookmarks as folders of their names, the other bookmarks at the top level.
/// A `meta_info.Description` (Vivaldi) becomes the note.
enum ChromiumBookmarkFile {
    /// Seconds from 1601-01-01 to 1970-01-01.
    private static let epochOffset: Double = 11_644_473_600

    static func document(reading json: JSONValue) throws(InterchangeError) -> BookmarkImportDocument
    {
        guard case .object(let roots)? = json["roots"] else {
            throw InterchangeError(
                reason: "a Chromium Bookmarks file needs an object here",
                location: .keyPath("roots"))
        }
        var document = BookmarkImportDocument(format: .chromium)
        var links: [BookmarkImportDocument.Link] = []
        var depths: [Int] = []
        // (node, folder it goes in, its place in the file)
        var stack: [(JSONValue, Int?, String)] = []
        for (name, root) in roots.reversed() {
            guard case .object = root else { continue }
            let place = "roots.\(name)"
            if name == "other" {
                for (index, child) in children(of: root).enumerated().reversed() {
                    stack.append((child, nil, "\(place).children[\(index)]"))
                }
            } else {
                stack.append((root, nil, place))
            }
        }
        while let (node, folder, place) = stack.popLast() {
            guard case .object(let members) = node else {
                document.skipped.append(
                    .init(place: .path(place), message: "an entry that is not an object"))
                continue
            }
            var fields = NodeFields()
            for (key, value) in members { fields.take(key, value) }
            let children = read(
                fields, place: place, in: folder, into: &document, depths: &depths,
                adding: { link, _ in links.append(link) })
            if case .read(let index) = children {
                for (offset, child) in Self.children(of: node).enumerated().reversed() {
                    stack.append((child, index, "\(place).children[\(offset)]"))
                }
            }
        }
        document.links = links
        return document
    }

    /// The members of a node that the import reads, the first of each name (as a JSON
    /// object's subscript finds them).
    struct NodeFields: Equatable {
        /// The names read, matched by their bytes as a JSON object's subscript matches them.
        static let names = ["type", "name", "date_added", "date_modified", "url", "meta_info"]
        private var values = [JSONValue?](repeating: nil, count: names.count)

        private static func slot(_ key: String) -> Int? {
            names.firstIndex { ExactName.sameBytes($0, key) }
        }

        /// Keeps a member's value when it is one the import reads and the first of its name.
        mutating func take(_ key: String, _ value: JSONValue) {
            if let slot = Self.slot(key), values[slot] == nil { values[slot] = value }
        }

        /// Whether a member of this name is one to keep.
        func wants(_ key: String) -> Bool {
            Self.slot(key).map { values[$0] == nil } ?? false
        }

        subscript(_ key: String) -> JSONValue? { Self.slot(key).flatMap { values[$0] } }

        var isFolder: Bool { ChromiumBookmarkFile.string(self["type"]) == "folder" }
    }

    /// What becomes of a node's children.
    enum Children: Equatable {
        /// They are read into this folder (nil: the top level).
        case read(in: Int?)
        /// They are not read: the node is not a folder.
        case ignored
    }

    /// Reads one node of the tree: a folder is added to the document, a link handed to
    /// `add` with the document's folders so far, and anything else listed as skipped;
    /// warnings (bad dates) are added as it goes.
    ///
    /// - Returns: What becomes of the node's children.
    static func read(
        _ node: NodeFields, place: String, in folder: Int?,
        into document: inout BookmarkImportDocument, depths: inout [Int],
        adding add: (BookmarkImportDocument.Link, [BookmarkImportDocument.Folder]) throws -> Void
    ) rethrows -> Children {
        let type = string(node["type"]) ?? ""
        let name = BookmarkImportDocument.cleaned(string(node["name"]) ?? "").text
        let createdAt = date(node["date_added"], "date_added", place, &document)
        if type == "folder" {
            let updatedAt = date(node["date_modified"], "date_modified", place, &document)
            let index = document.addFolder(
                BookmarkImportDocument.Folder(
                    name: name.isEmpty ? "Untitled folder" : name, parent: folder,
                    description: description(of: node), createdAt: createdAt,
                    updatedAt: updatedAt),
                depths: &depths, place: .path(place))
            return .read(in: index)
        } else if type == "url" {
            let href = (string(node["url"]) ?? "").trimmingWhitespace
            let (url, reasonToSkip) = BookmarkImportDocument.linkURL(href)
            if let reason = reasonToSkip {
                document.skipped.append(.init(place: .path(place), message: reason))
                return .ignored
            }
            try add(
                BookmarkImportDocument.Link(
                    draft: BookmarkDraft(
                        kind: NetscapeBookmarkFile.browserKind, itemID: href, title: name,
                        url: url, note: description(of: node)),
                    folder: folder, createdAt: createdAt, place: .path(place)),
                document.folders)
        } else {
            document.skipped.append(
                .init(place: .path(place), message: "an entry of unknown type '\(type)'"))
        }
        return .ignored
    }

    private static func children(of node: JSONValue) -> [JSONValue] {
        if case .array(let list)? = node["children"] { list } else { [] }
    }

    static func string(_ value: JSONValue?) -> String? {
        if case .string(let text)? = value { text } else { nil }
    }

    private static func description(of node: NodeFields) -> String? {
        let text = string(node["meta_info"]?["Description"]).map(BookmarkImportDocument.cleanedNote)
        return text?.isEmpty == false ? text : nil
    }

    private static func date(
        _ value: JSONValue?, _ field: String, _ place: String,
        _ document: inout BookmarkImportDocument
    ) -> Date? {
        guard let text = string(value), !text.isEmpty, text != "0" else { return nil }
        guard let microseconds = Double(text), microseconds.isFinite, microseconds > 0 else {
            document.warnings.append(
                .init(
                    place: .path(place),
                    message: "\(field) '\(text)' is not a Chromium time; the import time is used"))
            return nil
        }
        return Date(timeIntervalSince1970: microseconds / 1_000_000 - epochOffset)
    }
}
