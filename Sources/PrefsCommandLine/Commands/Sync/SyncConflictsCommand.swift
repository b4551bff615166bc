import PrefsKit
import PrefsSync

/// `prefs sync conflicts`: the losing sides of conflicts.
struct SyncConflictsCommand: RunnableCommand {
    static var name: String { "conflicts" }
    static let spec = CommandSpec(
        Self.self, abstract: "Show the losing sides of conflicts, newest first.",
        options: [SyncGroup.limit.spec], scope: .sync)

    var limit = 20

    func run(_ context: CommandContext) throws {
        let database = try context.openExistingForReading()
        let conflicts = try DeviceSync.conflicts(of: database, limit: limit)
        if context.globals.isJSON {
            context.printJSON(.array(conflicts.map(SyncText.json)))
            return
        }
        for conflict in conflicts {
            let lost =
                conflict.lostPresent
                ? conflict.lostValue.map(ValueText.listed) ?? "(no value)" : "(removed)"
            context.console.print(
                "\(ISO8601.string(from: conflict.recordedAt))"
                    + "  \(ValueText.listed(SyncText.subject(conflict.subject)))"
                    + "  lost \(lost) from \(Self.device(conflict.lostDevice, conflict.lostDeviceName)) at"
                    + " \(ISO8601.string(from: conflict.lostAt)), won by"
                    + " \(Self.device(conflict.wonDevice, conflict.wonDeviceName))\n"
            )
        }
    }
}

extension SyncConflictsCommand {
    /// A device as a listing shows it: its name and id, or its id.
    static func device(_ id: String, _ name: String?) -> String {
        name.map { "\(ValueText.listed($0)) (\(id))" } ?? id
    }
}

extension SyncConflictsCommand {
    init(parsing parsed: ParsedArguments) throws(UsageError) {
        self.init(limit: try parsed[SyncGroup.limit] ?? 20)
    }
}
