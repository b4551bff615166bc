import FoundationEssentials
import PrefsKit

extension CommandRunner {
    func addBookmark(_ draft: BookmarkDraft) throws {
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
    }

    func toggleBookmark(_ draft: BookmarkDraft) throws {
        let store = BookmarkStore(database: try openForWriting())
        let isBookmarked = try store.toggle(draft)
        if globals.isJSON {
            let bookmark = try store.bookmark(kind: draft.kind, itemID: draft.itemID)
            printJSON(.object([
                ("isBookmarked", .bool(isBookmarked)), ("bookmark", bookmark?.jsonValue ?? .null),
            ]))
        } else {
            console.print(isBookmarked ? "bookmarked\n" : "removed\n")
        }
    }

    func listBookmarks(_ query: BookmarkQuery, groupByCategory: Bool) throws {
        let store = try openForReading().map(BookmarkStore.init(database:))
        if groupByCategory {
            let groups = try store?.groupedByCategory(query) ?? []
            if globals.isJSON {
                printJSON(.object(groups.map { ($0.category ?? "", .array($0.bookmarks.map(\.jsonValue))) }))
            } else {
                var text = ""
                for group in groups {
                    text += (group.category ?? "(no category)") + "\n"
                    text += group.bookmarks.map { "  " + Self.line($0) }.joined()
                }
                console.print(text)
            }
            return
        }
        printBookmarks(try store?.list(query) ?? [])
    }

    func searchBookmarks(_ text: String, limit: Int) throws {
        _ = try BookmarkStore.validateSearch(text)
        let store = try openForReading().map(BookmarkStore.init(database:))
        printBookmarks(try store?.search(text, limit: limit) ?? [])
    }

    func moveBookmark(_ id: Int64, to position: Int) throws {
        guard let database = try openExistingForWriting() else { throw BookmarkError.notFound(id: id) }
        let bookmark = try BookmarkStore(database: database).move(id: id, to: position)
        if globals.isJSON { printJSON(bookmark.jsonValue) }
    }

    func importBookmarks(format: BookmarkFormat?, from file: String) throws {
        let bytes = try FileAccess.read(file, console: console)
        guard let text = String(validating: bytes, as: UTF8.self) else {
            throw CommandFailure("'\(file)' is not valid UTF-8", exitCode: CommandFailure.dataError)
        }
        let detected = format ?? (Self.detectFormat(bytes) == .plist ? .html : .json)
        let store = BookmarkStore(database: try openForWriting())
        let progress = ProgressBar(console: console, label: "Importing")
        defer { progress.finish() }
        let count: Int
        do {
            count = try detected == .json
                ? store.importJSON(text, progress: { progress.update(done: $0, total: $1) })
                : store.importHTML(text, progress: { progress.update(done: $0, total: $1) })
        } catch let error as BookmarkError {
            throw CommandFailure("\(error) in '\(file)'; nothing was imported", exitCode: CommandFailure.dataError)
        }
        progress.finish()
        inform("Imported \(count) bookmark\(count == 1 ? "" : "s")")
    }

    func exportBookmarks(format: BookmarkFormat, to file: String?) throws {
        let store = try openForReading().map(BookmarkStore.init(database:))
            ?? BookmarkStore(database: try AppDatabase.inMemory())
        let text = format == .json ? try store.exportJSON() : try store.exportHTML()
        if let file, file != "-" {
            try FileAccess.writeAtomically(Array(text.utf8), to: file)
            inform("Exported \(try store.count()) bookmarks to '\(file)'")
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
        [String(bookmark.id), bookmark.kind, bookmark.itemID, bookmark.title, bookmark.category ?? "-"]
            .joined(separator: "\t") + "\n"
    }
}
