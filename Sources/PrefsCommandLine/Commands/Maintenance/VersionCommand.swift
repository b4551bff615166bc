import PrefsKit

/// `prefs version` (and `--version` anywhere).
struct VersionCommand: RunnableCommand {
    static var name: String { "version" }
    var opensNoDatabase: Bool { true }
    static let spec = CommandSpec(Self.self, abstract: "Show the version.", scope: .json)

    func run(_ context: CommandContext) throws {
        if context.globals.isJSON {
            context.printJSON(.object([("version", .string(PrefsCommand.version))]))
        } else {
            context.console.print("prefs \(PrefsCommand.version)\n")
        }
    }
}

extension VersionCommand {
    init(parsing parsed: ParsedArguments) throws(UsageError) { self.init() }
}
