import PrefsKit

/// `prefs apps`: the apps that have a database of their own in the user data folder, and
/// the file all apps shared before, when it is still there.
struct AppsCommand: RunnableCommand {
    static var name: String { "apps" }
    var opensNoDatabase: Bool { true }
    static let spec = CommandSpec(
        Self.self, abstract: "List the apps that have a database in the user data folder.",
        discussion: """
            Each app keeps its own file (name one with --app or PREFS_APP). The file that every
            app shared before is listed as 'shared' while it is there; an app with no file of
            its own still uses it ('prefs doctor' says how to move it).
            """,
        scope: .json)

    func run(_ context: CommandContext) throws {
        let apps: [(app: String, path: String)]
        let shared: String?
        do {
            apps = try DatabaseLocation.apps(variable: context.console.variable)
            shared = try DatabaseLocation.sharedPath(variable: context.console.variable)
        } catch {
            throw CommandFailure(error.description, exitCode: CommandFailure.noInput)
        }
        let sharedExists = shared.map(AppDatabase.fileExists(atPath:)) ?? false
        if context.globals.isJSON {
            var rows = apps.map {
                JSONValue.object([("app", .string($0.app)), ("path", .string($0.path))])
            }
            if sharedExists, let shared {
                rows.append(.object([("app", .null), ("path", .string(shared))]))
            }
            context.printJSON(.array(rows))
            return
        }
        var lines = apps.map { "\(ValueText.listed($0.app))\t\(ValueText.listed($0.path))" }
        if sharedExists, let shared { lines.append("(shared)\t\(ValueText.listed(shared))") }
        if !lines.isEmpty { context.console.print(lines.joined(separator: "\n") + "\n") }
    }
}

extension AppsCommand {
    init(parsing parsed: ParsedArguments) throws(UsageError) { self.init() }
}
