import PrefsKit
import PrefsPostgreSQL
import PrefsSync

/// `prefs sync status`: the device's sync state, read from the file alone.
struct SyncStatusCommand: RunnableCommand {
    static var name: String { "status" }
    static let spec = CommandSpec(
        Self.self,
        abstract: "Show the device's sync state: hub, account, pending changes, conflicts, clock.",
        scope: .sync)

    func run(_ context: CommandContext) throws {
        guard let database = try context.openForReading(),
            let status = try DeviceSync.status(of: database)
        else {
            // A build without PostgreSQL cannot sync: it says which build can.
            throw CommandFailure(
                AppDatabase.supportsServers
                    ? "This database has never synced: run 'prefs sync --hub postgresql://...'"
                    : "This database has never synced, and this build of prefs cannot sync (the"
                        + " fully static build leaves PostgreSQL out); sync with a build of"
                        + " 'swift build -c release'",
                exitCode: CommandFailure.notFound)
        }
        if context.globals.isJSON {
            context.printJSON(
                .object([
                    ("device", .string(status.deviceID)),
                    ("hub", status.hub.map { .string(DatabaseLocation.shown($0)) } ?? .null),
                    ("account", status.account.map(JSONValue.string) ?? .null),
                    ("cursor", .integer(Int(status.cursor))),
                    (
                        "lastPush",
                        status.lastPush.map { .string(ISO8601.string(from: $0)) } ?? .null
                    ),
                    (
                        "lastPull",
                        status.lastPull.map { .string(ISO8601.string(from: $0)) } ?? .null
                    ),
                    ("pending", .integer(status.pending)),
                    ("conflicts", .integer(status.conflicts)),
                    ("lastError", status.lastError.map(JSONValue.string) ?? .null),
                    (
                        "lastErrorAt",
                        status.lastErrorAt.map { .string(ISO8601.string(from: $0)) } ?? .null
                    ),
                    ("lastErrorExitCode", status.lastErrorExitCode.map { .integer($0) } ?? .null),
                    ("refused", .integer(status.refused)),
                    (
                        "clockAheadMilliseconds",
                        status.clockAheadMilliseconds.map { .integer(Int($0)) } ?? .null
                    ),
                    (
                        "clockOffsetMilliseconds",
                        status.clockOffsetMilliseconds.map { .integer(Int($0)) } ?? .null
                    ),
                ]))
            return
        }
        let never = "never"
        // A server names the account: escaped for the terminal, as any text it sends.
        let hub = MessageText.escaped(status.hub.map(DatabaseLocation.shown) ?? "none")
        let account = MessageText.escaped(status.account ?? "none")
        context.console.print(
            """
            Device:     \(status.deviceID)
            Hub:        \(hub) (account \(account))
            Last push:  \(status.lastPush.map(ISO8601.string(from:)) ?? never)
            Last pull:  \(status.lastPull.map(ISO8601.string(from:)) ?? never)
            Pending:    \(status.pending) changes
            Conflicts:  \(status.conflicts) kept (prefs sync conflicts)
            Refused:    \(status.refused) changes
            Clock:      \(SyncText.clockText(status))
            Last error: \(SyncText.lastErrorText(status))

            """)
    }
}

extension SyncStatusCommand {
    init(parsing parsed: ParsedArguments) throws(UsageError) {
        self.init()
    }
}
