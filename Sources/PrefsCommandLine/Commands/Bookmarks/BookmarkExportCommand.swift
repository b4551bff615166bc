import PrefsInterchange
import PrefsKit

/// `prefs bookmark export [FILE]`: JSON or a browser's HTML file.
struct BookmarkExportCommand: RunnableCommand {
    static var name: String { "export" }
    static let file = OptionalArgument<String>(
        "file", help: "The output file (default: standard output).")
    static let format = Option<BookmarkFormat>(
        "format", value: "format", help: "json (default) or html.")
    static let spec = CommandSpec(
        Self.self, abstract: "Export bookmarks as JSON or as a browser's HTML file.",
        arguments: [file.spec], options: [format.spec], scope: .suiteless)

    var format: BookmarkFormat = .json
    var file: String? = nil

    func run(_ context: CommandContext) throws {
        let store =
            try context.openForReading().map(BookmarkStore.init(database:))
            ?? BookmarkStore(database: try AppDatabase.inMemory())
        let text = format == .json ? try store.exportJSON() : try store.exportHTML()
        if let file, file != "-" {
            try FileAccess.writeAtomically(Array(text.utf8), to: file)
            let count = try store.count()
            context.inform("Exported \(count) bookmark\(count == 1 ? "" : "s") to '\(file)'")
        } else {
            context.console.print(text)
        }
    }
}

extension BookmarkExportCommand {
    init(parsing parsed: ParsedArguments) throws(UsageError) {
        self.init(format: try parsed[Self.format] ?? .json, file: try parsed[Self.file])
    }
}
