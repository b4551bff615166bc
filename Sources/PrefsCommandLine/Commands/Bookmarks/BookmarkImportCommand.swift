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
        if let staging = try stagedFile() {
            let store = BookmarkStore(database: try context.openForWriting())
            let progress = ProgressBar(console: context.console, label: "Importing")
            defer { progress.finish() }
            let summary = try store.importStaged(
                staging, progress: { progress.update(done: $0, total: $1) })
            progress.finish()
            report(summary, context)
            return
        }
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
        report(summary, context)
    }

    /// A Netscape bookmark file, our JSON export, Chromium's file or Safari's (binary or
    /// XML) over 1 MB, read in pieces into a staging file before the database is opened; nil for
    /// anything else, which is read whole.
    private func stagedFile() throws -> BookmarkImportStaging? {
        guard let pieces = FileAccess.Pieces(regularFileAt: file), pieces.size > 1 << 20 else {
            return nil
        }
        let head = try pieces.head(1 << 16)
        if BookmarkStore.readsAsBinarySafariFile(head: head, format: format) {
            return try BookmarkStore.stageBinarySafariFile(
                size: pieces.size, read: try pieces.randomAccess())
        }
        if BookmarkStore.readsAsXMLSafariFile(head: head, format: format) {
            return try naming {
                try BookmarkStore.stageXMLSafariFile(reading: { try pieces.reader() })
            }
        }
        if BookmarkStore.mayReadAsJSONExport(head: head, format: format),
            let staging = try BookmarkStore.stageJSONExport(reading: try pieces.reader())
        {
            return staging
        }
        if BookmarkStore.mayReadAsChromiumFile(head: head, format: format) {
            // Anything but the export's outline or Chromium's tree, each checked as it
            // comes, is read whole, where a problem is named with its place.
            return try naming {
                try BookmarkStore.stageChromiumFile(reading: { try pieces.reader() })
            }
        }
        guard BookmarkStore.readsAsNetscapeFile(head: head, format: format) else { return nil }
        let next = try pieces.reader()
        var check = UTF8Check()
        do {
            return try BookmarkStore.stageNetscapeFile(
                reading: {
                    let piece = try next()
                    check.take(piece)
                    return piece
                },
                // Told for a file whose format was found from its content, as when read whole.
                isValidUTF8: { format != nil || check.isValid })
        } catch let error as BookmarkError {
            throw CommandFailure(
                "\(error) in '\(file)'; nothing was imported"
                    + BookmarkText.wrongFileHint(try pieces.head(1 << 16)),
                exitCode: CommandFailure.dataError)
        }
    }

    /// Runs a staged reading, its refusal (a file read twice that changed) said as the
    /// file's: exit 65, nothing imported.
    private func naming(_ body: () throws -> BookmarkImportStaging?) throws
        -> BookmarkImportStaging?
    {
        do {
            return try body()
        } catch let error as BookmarkError {
            throw CommandFailure(
                "\(error) in '\(file)'; nothing was imported", exitCode: CommandFailure.dataError)
        }
    }

    private func report(_ summary: BookmarkImportSummary, _ context: CommandContext) {
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

/// Whether bytes handed over in pieces are valid UTF-8, a character cut between two
/// pieces included.
private struct UTF8Check {
    private var carried: [UInt8] = []
    private(set) var isValid = true

    /// Checks the next piece; nil is the end of the bytes.
    mutating func take(_ piece: [UInt8]?) {
        guard isValid else { return }
        guard let piece else {
            isValid = carried.isEmpty
            return
        }
        let bytes = carried + piece
        // A sequence that the piece's end cuts waits for the next piece.
        var cut = bytes.count
        var lead = bytes.count - 1
        while lead >= 0, lead > bytes.count - 4, bytes[lead] & 0xC0 == 0x80 { lead -= 1 }
        if lead >= 0 {
            let byte = bytes[lead]
            let length = byte >= 0xF0 ? 4 : byte >= 0xE0 ? 3 : byte >= 0xC0 ? 2 : 1
            if bytes.count - lead < length { cut = lead }
        }
        isValid = String(validating: bytes[..<cut], as: UTF8.self) != nil
        carried = Array(bytes[cut...])
    }
}
