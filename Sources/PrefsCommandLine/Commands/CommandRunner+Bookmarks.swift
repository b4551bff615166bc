import PrefsKit

#if canImport(FoundationEssentials) && !PREFS_FULL_FOUNDATION
    import FoundationEssentials
#else
    import Foundation
#endif

extension CommandRunner {
    func addBookmark(_ draft: BookmarkDraft) throws {
        _ = try draft.validated()  // before the file is created
        let bookmark = try BookmarkStore(database: try openForWriting()).add(draft)
        if globals.isJSON {
            printJSON(bookmark.jsonValue)
        } else {
            console.print("\(bookmark.id)\n")
        }
    }

    func removeBookmark(_ reference: BookmarkReference) throws {
        let store = try openExistingForWriting().map(BookmarkStore.init(database:))
        switch reference {
        case .id(let id):
            guard try store?.remove(id: id) == true else { throw BookmarkError.notFound(id: id) }
        case .item(let kind, let itemID):
            guard try store?.remove(kind: kind, itemID: itemID) == true else {
                throw BookmarkError.itemNotFound(kind: kind, itemID: itemID)
            }
        }
        if globals.isJSON {
            switch reference {
            case .id(let id):
                printJSON(.object([("id", .number(String(id))), ("removed", .bool(true))]))
            case .item(let kind, let itemID):
                printJSON(
                    .object([
                        ("kind", .string(kind)), ("itemID", .string(itemID)),
                        ("removed", .bool(true)),
                    ]))
            }
        }
    }

    func toggleBookmark(_ draft: BookmarkDraft) throws {
        _ = try draft.validated()  // before the file is created
        let store = BookmarkStore(database: try openForWriting())
        let isBookmarked = try store.toggle(draft)
        if globals.isJSON {
            let bookmark = try store.bookmark(kind: draft.kind, itemID: draft.itemID)
            printJSON(
                .object([
                    ("isBookmarked", .bool(isBookmarked)),
                    ("bookmark", bookmark?.jsonValue ?? .null),
                ]))
        } else {
            console.print(isBookmarked ? "bookmarked\n" : "removed\n")
        }
    }

    func listBookmarks(_ query: BookmarkQuery, grouping: BookmarkGrouping?) throws {
        let store = try openForReading().map(BookmarkStore.init(database:))
        if grouping == .folder {
            let groups = try store?.groupedByFolder(query) ?? []
            if globals.isJSON {
                printJSON(
                    .object(
                        groups.map {
                            (
                                BookmarkFolderPath.text($0.folder),
                                .array($0.bookmarks.map(\.jsonValue))
                            )
                        }))
            } else {
                var text = ""
                for group in groups {
                    text +=
                        (group.folder.isEmpty
                            ? "(top level)"
                            : ValueText.listed(BookmarkFolderPath.text(group.folder))) + "\n"
                    text += group.bookmarks.map { "  " + Self.line($0) }.joined()
                }
                console.print(text)
            }
            return
        }
        if grouping == .category {
            let groups = try store?.groupedByCategory(query) ?? []
            if globals.isJSON {
                printJSON(
                    .object(
                        groups.map { ($0.category ?? "", .array($0.bookmarks.map(\.jsonValue))) }))
            } else {
                var text = ""
                for group in groups {
                    text += (group.category.map(ValueText.listed) ?? "(no category)") + "\n"
                    text += group.bookmarks.map { "  " + Self.line($0) }.joined()
                }
                console.print(text)
            }
            return
        }
        printBookmarks(try store?.list(query) ?? [])
    }

    func searchBookmarks(_ text: String, limit: Int) throws {
        try BookmarkStore.validateSearch(text)
        let store = try openForReading().map(BookmarkStore.init(database:))
        printBookmarks(try store?.search(text, limit: limit) ?? [])
    }

    func moveBookmark(_ id: Int64, to position: Int) throws {
        guard let database = try openExistingForWriting() else {
            throw BookmarkError.notFound(id: id)
        }
        let bookmark = try BookmarkStore(database: database).move(id: id, to: position)
        if globals.isJSON { printJSON(bookmark.jsonValue) }
    }

    func importBookmarks(format: BookmarkImportDocument.Format?, from file: String) throws {
        let bytes = try FileAccess.read(file, console: console)
        // Read the file before opening the database: a file that is not a bookmark file
        // creates nothing.
        let document: BookmarkImportDocument
        do {
            document = try BookmarkStore.document(
                reading: bytes, atPath: file == "-" ? nil : file, format: format)
        } catch let error as BookmarkError {
            throw CommandFailure(
                "\(error) in '\(file)'; nothing was imported" + Self.wrongFileHint(bytes),
                exitCode: CommandFailure.dataError)
        }
        let store = BookmarkStore(database: try openForWriting())
        let progress = ProgressBar(console: console, label: "Importing")
        defer { progress.finish() }
        let summary = try store.importDocument(
            document, progress: { progress.update(done: $0, total: $1) })
        progress.finish()
        if globals.isJSON {
            printJSON(summary.jsonValue)
            return
        }
        inform(summary.description)
        // Issues quote titles and URLs of the file, which may hold terminal controls.
        for issue in summary.skipped { inform("  skipped: " + ValueText.listed("\(issue)")) }
        for issue in summary.warnings { inform("  warning: " + ValueText.listed("\(issue)")) }
    }

    /// A hint for a file that another command reads.
    static func wrongFileHint(_ bytes: [UInt8]) -> String {
        let head = String(decoding: bytes.prefix(512), as: UTF8.self)
        if head.contains("<plist") || bytes.starts(with: Array("bplist".utf8)) {
            return " (preferences in a property list are imported with 'prefs import')"
        }
        return ""
    }

    func exportBookmarks(format: BookmarkFormat, to file: String?) throws {
        let store =
            try openForReading().map(BookmarkStore.init(database:))
            ?? BookmarkStore(database: try AppDatabase.inMemory())
        let text = format == .json ? try store.exportJSON() : try store.exportHTML()
        if let file, file != "-" {
            try FileAccess.writeAtomically(Array(text.utf8), to: file)
            let count = try store.count()
            inform("Exported \(count) bookmark\(count == 1 ? "" : "s") to '\(file)'")
        } else {
            console.print(text)
        }
    }

    private func printBookmarks(_ bookmarks: [Bookmark]) {
        if globals.isJSON {
            printJSON(.array(bookmarks.map(\.jsonValue)))
        } else {
            console.print(bookmarks.map(Self.line).joined())
        }
    }

    /// One bookmark on one line, tab-separated: id, kind, item ID, title, category.
    static func line(_ bookmark: Bookmark) -> String {
        [
            String(bookmark.id), ValueText.listed(bookmark.kind), ValueText.listed(bookmark.itemID),
            ValueText.listed(bookmark.title), bookmark.category.map(ValueText.listed) ?? "-",
        ]
        .joined(separator: "\t") + "\n"
    }
}
