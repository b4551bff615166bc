import Dispatch
import PrefsKit

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// `prefs watch [KEY ...]`: prints changes as they happen, until interrupted.
struct WatchCommand: RunnableCommand {
    static var name: String { "watch" }
    static let keys = RepeatingArgument<String>(
        "key", help: "Keys to watch (default: all of the suite).", isOptional: true,
        completesKeys: true)
    static let spec = CommandSpec(
        Self.self, abstract: "Print changes of preferences as they happen, from any process.",
        discussion: "Runs until interrupted. With --json, prints one JSON object per line.",
        arguments: [keys.spec], scope: .preferences)

    var keys: [String] = []

    func run(_ context: CommandContext) throws {
        CommandContext.exitOnStopSignals()
        while !context.databaseExists {
            usleep(50_000)
        }
        let database = try context.openExistingForReading()
        let store = PreferenceStore(database: database, suite: context.suite)
        let stream = store.changes()
        let wanted = Set(keys.map(ExactName.init))
        let isJSON = context.globals.isJSON
        let console = context.console
        let done = DispatchSemaphore(value: 0)
        Task.detached {
            for await change in stream
            where wanted.isEmpty || wanted.contains(ExactName(change.key)) {
                let line: String
                if isJSON {
                    line = JSONShapes.change(change).serialized(.spaced)
                } else if let value = change.value {
                    line = "\(ValueText.listed(change.key))=\(ValueText.listed(value))"
                } else {
                    line = "\(ValueText.listed(change.key)) (removed)"
                }
                if !console.print(line + "\n") { break }
            }
            done.signal()
        }
        done.wait()
        exit(0)
    }
}

extension WatchCommand {
    init(parsing parsed: ParsedArguments) throws(UsageError) {
        self.init(keys: try parsed[Self.keys])
    }
}
