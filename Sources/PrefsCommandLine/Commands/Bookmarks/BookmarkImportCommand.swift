import PrefsInterchange
import PrefsKit

#if canImport(FoundationEssentials) && !PREFS_FULL_FOUNDATION
    import FoundationEssentials
#else
    import Foundation
#endif

/// `prefs bookmark import FILE`: our JSON or a browser's file, all or nothing.
struct BookmarkImportCommand: RunnableCommand {
    static var name: String { "import" }
    static let file = Argument<String>("file", help: "The input file, or - for standard input.")
    static let format = Option<BookmarkImportFormatName>(
        "format", value: "format",
        help: "json, html, chromium, firefox or safari (default: detected).")
    static let spec = CommandSpec(
        Self.self, abstract: "Import bookmarks from our JSON or a browser's file, all or nothing.",
        discussion: """
            Reads our JSON export, a Netscape bookmark HTML file (every browser exports
            one), Chromium's Bookmarks file (Chrome, Brave, Edge, Vivaldi), Firefox's
            places.sqlite (read-only, safe while Firefox runs) and Safari's
            Bookmarks.plist, told apart by their content. The same URL twice becomes one
            bookmark; links that cannot be imported are listed with their line.
            """,
        arguments: [file.spec], options: [format.spec], scope: .suiteless)

    var format: BookmarkImportDocument.Format? = nil
    var file: String

    func run(_ context: CommandContext) throws {
        let bytes = try FileAccess.read(file, console: context.console)
        // Read the file before opening the database: a file that is not a bookmark file
        // creates nothing.
        let document: BookmarkImportDocument
        do {
            document = try BookmarkStore.document(
                reading: bytes, atPath: file == "-" ? nil : file, format: format)
        } catch let error as BookmarkError {
            throw CommandFailure(
                "\(error) in '\(file)'; nothing was imported" + BookmarkText.wrongFileHint(bytes),
                exitCode: CommandFailure.dataError)
        }
        let store = BookmarkStore(database: try context.openForWriting())
        let progress = ProgressBar(console: context.console, label: "Importing")
        defer { progress.finish() }
        let summary = try store.importDocument(
            document, progress: { progress.update(done: $0, total: $1) })
        progress.finish()
        if context.globals.isJSON {
            context.printJSON(summary.jsonValue)
            return
        }
        context.inform(summary.description)
        // Issues quote titles and URLs of the file, which may hold terminal controls.
        for issue in summary.skipped {
            context.inform("  skipped: " + ValueText.listed("\(issue)"))
        }
        for issue in summary.warnings {
            context.inform("  warning: " + ValueText.listed("\(issue)"))
        }
    }
}

extension BookmarkImportCommand {
    init(parsing parsed: ParsedArguments) throws(UsageError) {
        self.init(format: try parsed[Self.format]?.format, file: try parsed[Self.file])
    }
}
