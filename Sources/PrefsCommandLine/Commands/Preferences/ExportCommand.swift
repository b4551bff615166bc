import PrefsKit

#if canImport(FoundationEssentials) && !PREFS_FULL_FOUNDATION
    import FoundationEssentials
#else
    import Foundation
#endif

/// `prefs export [FILE]`: the suite's preferences as JSON or a property list.
struct ExportCommand: RunnableCommand {
    static var name: String { "export" }
    static let file = OptionalArgument<String>(
        "file", help: "The output file (default: standard output).")
    static let format = Option<InterchangeFormat>(
        "format", value: "format", help: "The format: json (default), plist (XML) or binary-plist.")
    static let lossy = Flag(
        "lossy",
        help: "Export to a property list even when values change type (floats, URLs, JSON).")
    static let spec = CommandSpec(
        Self.self, abstract: "Write the suite's preferences as JSON or a property list.",
        discussion: """
            The JSON export keeps every type. A property list has no float, URL or JSON type:
            such values would read back as a double or a string, so a property-list export
            of them is refused, naming the keys, unless --lossy is given (then they are
            named on standard error).
            """,
        arguments: [file.spec], options: [format.spec, lossy.spec], scope: .preferences)

    var format: InterchangeFormat = .json
    var file: String? = nil
    var lossy = false

    func run(_ context: CommandContext) throws {
        let store = try context.openForReading().map {
            PreferenceStore(database: $0, suite: context.suite)
        }
        switch format {
        case .json:
            // Written as it is read: an export of any size in constant memory.
            let source =
                try store
                ?? PreferenceStore(database: try AppDatabase.inMemory(), suite: context.suite)
            if let file, file != "-" {
                try FileAccess.writeAtomically(to: file) { write in
                    try source.exportJSON { try write(Array($0.utf8)) }
                }
                context.inform("Exported suite '\(context.suite)' to '\(file)'")
            } else {
                try source.exportJSON { _ = context.console.outputBytes(Array($0.utf8)) }
            }
            return
        case .plist, .binaryPlist:
            let plistFormat: PropertyList.Format = format == .plist ? .xml : .binary
            if let losses = try store?.propertyListLosses(format: plistFormat), !losses.isEmpty {
                let list = losses.prefix(5).map {
                    "'\(ValueText.shown($0.key))' (\($0.type)) would become \($0.becomes)"
                }
                let named =
                    list.joined(separator: ", ")
                    + (losses.count > 5 ? " and \(losses.count - 5) more" : "")
                guard lossy else {
                    throw CommandFailure(
                        "A property list cannot keep every type: \(named); export as JSON,"
                            + " or pass --lossy", exitCode: CommandFailure.dataError)
                }
                context.inform("Warning: \(named)")
            }
            // Written as it is read, as JSON is.
            let source =
                try store
                ?? PreferenceStore(database: try AppDatabase.inMemory(), suite: context.suite)
            if let file, file != "-" {
                try FileAccess.writeAtomically(to: file) { write in
                    try source.exportPropertyList(format: plistFormat, to: write)
                }
                context.inform("Exported suite '\(context.suite)' to '\(file)'")
            } else {
                // Binary goes out byte for byte, and never to a terminal (where it would be
                // noise).
                if format == .binaryPlist && context.console.isOutputTerminal {
                    throw CommandFailure(
                        "a binary property list is not for a terminal; redirect the output"
                            + " ('prefs export --format binary-plist > FILE') or name a file",
                        exitCode: CommandFailure.usage)
                }
                try source.exportPropertyList(format: plistFormat) {
                    _ = context.console.outputBytes($0)
                }
            }
        }
    }
}

extension ExportCommand {
    init(parsing parsed: ParsedArguments) throws(UsageError) {
        let format = try parsed[Self.format] ?? .json
        if parsed[Self.lossy] && format == .json {
            throw UsageError(
                "'--lossy' applies to a property-list export (JSON keeps every type)",
                path: parsed.path)
        }
        self.init(format: format, file: try parsed[Self.file], lossy: parsed[Self.lossy])
    }
}
