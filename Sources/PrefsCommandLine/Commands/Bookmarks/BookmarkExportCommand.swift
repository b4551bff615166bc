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
        // Written as it is read: any number of bookmarks in constant memory.
        func export(_ write: (String) throws -> Void) throws {
            if format == .json {
                try store.exportJSON(to: write)
            } else {
                try store.exportHTML(to: write)
            }
        }
        if let file, file != "-" {
            try FileAccess.writeAtomically(to: file) { write in
                try export { try write(Array($0.utf8)) }
            }
            let count = try store.count()
            context.inform("Exported \(count) bookmark\(count == 1 ? "" : "s") to '\(file)'")
        } else {
            try export { _ = context.console.print($0) }
        }
    }
}

extension BookmarkExportCommand {
    init(parsing parsed: ParsedArguments) throws(UsageError) {
        self.init(format: try parsed[Self.format] ?? .json, file: try parsed[Self.file])
    }
}
