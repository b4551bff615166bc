import PrefsInterchange
import PrefsKit

#if canImport(FoundationEssentials) && !PREFS_FULL_FOUNDATION
    import FoundationEssentials
#else
    import Foundation
#endif

/// `prefs import FILE`: preferences from JSON or a property list, all or nothing.
struct ImportCommand: RunnableCommand {
    static var name: String { "import" }
    static let file = Argument<String>("file", help: "The input file, or - for standard input.")
    static let format = Option<InterchangeFormat>(
        "format", value: "format",
        help: "The format: json, plist or binary-plist (default: detected).")
    static let replace = Flag("replace", help: "Remove the suite's other preferences first.")
    static let force = Flag("force", short: "f", help: "Do not ask before replacing.")
    static let spec = CommandSpec(
        Self.self, abstract: "Read preferences from JSON or a property list, all or nothing.",
        discussion: "The format is detected from the content unless --format is given.",
        arguments: [file.spec], options: [format.spec, replace.spec, force.spec],
        scope: .preferences)

    var format: InterchangeFormat? = nil
    var file: String
    var replace = false
    var force = false

    /// Files above this size are imported piece by piece when they are a JSON export with
    /// keys in byte order (what `prefs export` writes); others are read whole.
    static let streamingThreshold = 1 << 20

    func run(_ context: CommandContext) throws {
        if let count = try importPieceByPiece(context) {
            context.inform(
                "Imported \(count) preference\(count == 1 ? "" : "s") into suite '\(context.suite)'"
            )
            return
        }
        let bytes = try FileAccess.read(file, console: context.console)
        let detected = format ?? Self.detectFormat(bytes)
        if let bookmarkFormat = BookmarkImportDocument.browserFormat(of: bytes) {
            throw CommandFailure(
                "'\(file)' is a bookmark file (\(bookmarkFormat.rawValue)), not preferences;"
                    + " import it with 'prefs bookmark import \(file)'",
                exitCode: CommandFailure.dataError)
        }
        if replace {
            try context.confirm(
                "Replace every preference of suite '\(context.suite)'?", force: force,
                flagHint: "--force")
        }
        let count: Int
        do {
            // The whole file is read and checked before the database is opened: a file that
            // does not parse, or exceeds a decoding limit, changes nothing, not even by
            // creating the database.
            let document: PreferenceImport
            switch detected {
            case .json:
                guard let text = String(validating: bytes, as: UTF8.self) else {
                    throw CommandFailure(
                        "'\(file)' is not valid UTF-8 JSON", exitCode: CommandFailure.dataError)
                }
                document = try PreferenceImport(json: text)
            case .plist, .binaryPlist:
                document = try PreferenceImport(propertyList: Data(bytes))
            }
            let store = PreferenceStore(
                database: try context.openForWriting(), suite: context.suite)
            let progress = ProgressBar(console: context.console, label: "Importing")
            defer { progress.finish() }
            count = try store.importValues(document, replacing: replace) {
                progress.update(done: $0, total: $1)
            }
        } catch let error as PreferenceError {
            throw CommandFailure(
                "\(error) in '\(file)'; nothing was imported", exitCode: CommandFailure.dataError)
        }
        context.inform(
            "Imported \(count) preference\(count == 1 ? "" : "s") into suite '\(context.suite)'")
    }

    /// A large export (JSON or a property list), imported as it is read twice, checked,
    /// then stored in one transaction: in memory that does not grow with it. Nil (nothing
    /// done) for a file that is to be read whole; whatever is wrong with it is then found and
    /// named there.
    private func importPieceByPiece(_ context: CommandContext) throws -> Int? {
        guard let file = FileAccess.Pieces(regularFileAt: file),
            file.size > Self.streamingThreshold
        else { return nil }
        let head = try file.head(1 << 16)
        let detected = Self.detectFormat(head)
        guard format == nil || format == detected,
            BookmarkImportDocument.browserFormat(of: head) == nil
        else { return nil }
        let reading = { () throws -> StreamedImport in
            switch detected {
            case .json: .jsonExport(try file.reader())
            case .plist: .xmlPropertyList(try file.reader())
            case .binaryPlist: .binaryPropertyList(size: file.size, read: try file.randomAccess())
            }
        }
        guard let count = try PreferenceStore.countStreamable(try reading()) else { return nil }
        if replace {
            try context.confirm(
                "Replace every preference of suite '\(context.suite)'?", force: force,
                flagHint: "--force")
        }
        let store = PreferenceStore(database: try context.openForWriting(), suite: context.suite)
        let progress = ProgressBar(console: context.console, label: "Importing")
        defer { progress.finish() }
        do {
            return try store.importStreamed(try reading(), count: count, replacing: replace) {
                progress.update(done: $0, total: $1)
            }
        } catch let error as PreferenceError {
            throw CommandFailure(
                "\(error) in '\(file.path)'; nothing was imported",
                exitCode: CommandFailure.dataError)
        }
    }

    static func detectFormat(_ bytes: [UInt8]) -> InterchangeFormat {
        if bytes.starts(with: Array("bplist".utf8)) { return .binaryPlist }
        let head = String(decoding: bytes.prefix(256), as: UTF8.self)
            .trimmingPrefix(while: { $0.isWhitespace || $0 == "\u{FEFF}" })
        return head.hasPrefix("<") ? .plist : .json
    }
}

extension ImportCommand {
    init(parsing parsed: ParsedArguments) throws(UsageError) {
        self.init(
            format: try parsed[Self.format], file: try parsed[Self.file],
            replace: parsed[Self.replace], force: parsed[Self.force])
    }
}
