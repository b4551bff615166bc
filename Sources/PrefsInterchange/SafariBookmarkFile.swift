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
        guard case .dictionary(let top) = root, isBookmarks(top) else {
            throw InterchangeError(
                reason:
                    "a property list that is not Safari's Bookmarks.plist (no WebBookmarkTypeList at"
                    + " its root)")
        }
        var document = BookmarkImportDocument(format: .safari)
        var links: [BookmarkImportDocument.Link] = []
        var depths: [Int] = []
        var stack: [(PreferenceValue, Int?, String)] = []
        for (index, child) in children(of: top).enumerated().reversed() {
            stack.append((child, nil, "Children[\(index)]"))
        }
        while let (node, folder, place) = stack.popLast() {
            guard case .dictionary(let item) = node else { continue }
            let outcome = read(
                item, place: place, in: folder, into: &document, depths: &depths,
                adding: { link, _ in links.append(link) })
            if case .read(let index) = outcome {
                for (offset, child) in children(of: item).enumerated().reversed() {
                    stack.append((child, index, "\(place).Children[\(offset)]"))
                }
            }
        }
        document.links = links
        return document
    }

    /// Whether a top dictionary is Safari's bookmarks.
    private static func isBookmarks(_ top: [String: PreferenceValue]) -> Bool {
        top["WebBookmarkType"] == .string("WebBookmarkTypeList")
    }

    /// What becomes of a node's children.
    enum Children: Equatable {
        /// They are read into this folder.
        case read(in: Int?)
        /// They are not read.
        case ignored
    }

    /// Reads one node of the tree: a folder is added to the document, a link handed to
    /// `add` with the document's folders so far, anything else but the History proxy listed
    /// as skipped.
    ///
    /// - Returns: What becomes of the node's children.
    static func read(
        _ item: [String: PreferenceValue], place: String, in folder: Int?,
        into document: inout BookmarkImportDocument, depths: inout [Int],
        adding add: (BookmarkImportDocument.Link, [BookmarkImportDocument.Folder]) throws -> Void
    ) rethrows -> Children {
        switch string(item["WebBookmarkType"]) {
        case "WebBookmarkTypeList":
            let title = string(item["Title"]) ?? ""
            let name = BookmarkImportDocument.cleaned(Self.names[title] ?? title).text
            let index = document.addFolder(
                BookmarkImportDocument.Folder(
                    name: name.isEmpty ? "Untitled folder" : name, parent: folder),
                depths: &depths, place: .path(place))
            return .read(in: index)
        case "WebBookmarkTypeLeaf":
            let href = (string(item["URLString"]) ?? "").trimmingWhitespace
            let (url, reasonToSkip) = BookmarkImportDocument.linkURL(href)
            if let reason = reasonToSkip {
                document.skipped.append(.init(place: .path(place), message: reason))
                return .ignored
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
            try add(
                BookmarkImportDocument.Link(
                    draft: BookmarkDraft(
                        kind: NetscapeBookmarkFile.browserKind, itemID: href,
                        title: BookmarkImportDocument.cleaned(title).text,
                        url: url, note: note?.isEmpty == false ? note : nil),
                    folder: folder, createdAt: createdAt, place: .path(place)),
                document.folders)
        case "WebBookmarkTypeProxy":
            break
        default:
            document.skipped.append(
                .init(place: .path(place), message: "an entry of unknown type"))
        }
        return .ignored
    }

    /// Reads a binary `Bookmarks.plist` from a file where its objects are into a staging
    /// file: the outcome of ``document(reading:)`` on the whole file, in memory that does
    /// not grow with it. Nil when it must be read whole (it is not Safari's bookmarks, the
    /// whole reading would refuse it, or it shares a folder or a link between two places).
    ///
    /// - Parameters:
    ///   - size: The file's size.
    ///   - read: The file's bytes at an offset (fewer only at its end).
    /// - Throws: ``DatabaseError`` when the staging file fails; `read`'s errors.
    static func stage(size: Int, read: @escaping (_ offset: Int, _ count: Int) throws -> [UInt8])
        throws -> BookmarkImportStaging?
    {
        var stager = NodeStager(staging: try BookmarkImportStaging(format: .safari))
        let isWhole = try PropertyList.walkBinaryTree(
            size: size, read: read, childrenKey: "Children", top: isBookmarks,
            visit: { entries, level in try stager.visit(entries, level: level) })
        guard isWhole else { return nil }
        stager.staging.finish(stager.document)
        return stager.staging
    }

    /// Reads an XML `Bookmarks.plist` handed over in pieces into a staging file: the outcome
    /// of ``document(reading:)`` on the whole file, in memory that does not grow with its
    /// links. A writer that sorts keys puts a folder's `Children` before its `Title`, so the
    /// file is read twice: first for the entries of the nodes that have children, then for
    /// the links, each staged as it comes with the folders before it known; only the second
    /// reads (and checks) every link. Nil when the file must be read whole (it is not
    /// Safari's bookmarks, or the whole reading would refuse it and name the problem).
    ///
    /// - Parameter pieces: Makes a reader of the file's pieces from its start, nil at its
    ///   end; called twice.
    /// - Throws: ``BookmarkError/malformedImport(_:)`` when the file changed between the
    ///   two readings; the pieces' errors; ``DatabaseError`` when the staging file fails.
    static func stageXML(reading pieces: () throws -> () throws -> [UInt8]?) throws
        -> BookmarkImportStaging?
    {
        var folders: [Int: [String: PreferenceValue]] = [:]
        guard
            let outline = try PropertyList.walkXMLTree(
                next: try pieces(), childrenKey: "Children", readsEveryNode: false,
                event: { event in
                    if case .nodeEnd(let node, _, let entries?, true) = event {
                        folders[node] = entries
                    }
                }),
            isBookmarks(outline.top)
        else { return nil }
        var stager = NodeStager(staging: try BookmarkImportStaging(format: .safari))
        var changed = false
        let second = try PropertyList.walkXMLTree(
            next: try pieces(), childrenKey: "Children",
            event: { event in
                // Once the file is found changed, its levels are no longer the first's.
                guard !changed else { return }
                switch event {
                case .childrenBegin(let node, let level):
                    // The node is read before its children, with the first reading's entries.
                    guard let entries = folders[node] else {
                        changed = true
                        return
                    }
                    try stager.visit(entries, level: level)
                case .nodeEnd(let node, let level, let entries, let hasChildren):
                    if hasChildren {
                        if folders[node] != entries { changed = true }
                    } else {
                        if folders[node] != nil { changed = true }
                        try stager.visit(entries, level: level)
                    }
                }
            })
        // Unreadable now: a link the first reading did not read, or a file that changed;
        // either way, the whole reading says what is wrong.
        guard let second else { return nil }
        guard !changed, second.nodes == outline.nodes, second.top == outline.top else {
            throw BookmarkError.malformedImport("the file changed while it was read")
        }
        stager.staging.finish(stager.document)
        return stager.staging
    }

    /// Stages the nodes of a walk of the tree, met in depth-first order, as
    /// ``document(reading:)`` reads them.
    private struct NodeStager {
        let staging: BookmarkImportStaging
        var document = BookmarkImportDocument(format: .safari)
        var depths: [Int] = []
        /// For each level above the node met: the folder its children go in (nil: the top
        /// level), whether they are read, its place, and how many children it has shown.
        var levels: [(folder: Int?, isRead: Bool, place: String, count: Int)] = [
            (nil, true, "", 0)
        ]

        init(staging: BookmarkImportStaging) {
            self.staging = staging
        }

        /// The next node: its entries but its children (nil when it is not a dictionary),
        /// and its level (1 for the top's children).
        mutating func visit(_ entries: [String: PreferenceValue]?, level: Int) throws {
            // A walk meets a node's parent before it; a level past that is a file that
            // changed as it was walked.
            guard level >= 1, level <= levels.count else {
                throw BookmarkError.malformedImport("the file changed while it was read")
            }
            levels.removeSubrange(level...)
            let parent = levels[level - 1]
            levels[level - 1].count += 1
            let place =
                parent.place.isEmpty
                ? "Children[\(parent.count)]" : "\(parent.place).Children[\(parent.count)]"
            var outcome = Children.ignored
            if parent.isRead, let entries {
                let staging = staging
                outcome = try SafariBookmarkFile.read(
                    entries, place: place, in: parent.folder, into: &document, depths: &depths,
                    adding: { link, folders in try staging.add(link, folders: folders) })
            }
            if case .read(let index) = outcome {
                levels.append((index, true, place, 0))
            } else {
                levels.append((nil, false, place, 0))
            }
        }
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
