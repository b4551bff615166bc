import PrefsKit
import PrefsSync

/// `prefs sync refused`: changes refused, and why.
struct SyncRefusedCommand: RunnableCommand {
    static var name: String { "refused" }
    static let spec = CommandSpec(
        Self.self, abstract: "Show the changes sync refused, pushed or pulled, and why.",
        options: [SyncGroup.limit.spec], scope: .sync)

    var limit = 20

    func run(_ context: CommandContext) throws {
        let database = try context.openExistingForReading()
        let refusals = try DeviceSync.refusals(of: database, limit: limit)
        if context.globals.isJSON {
            context.printJSON(
                .array(
                    refusals.map { refusal in
                        .object([
                            ("direction", .string(refusal.direction.rawValue)),
                            ("subject", .string(refusal.subject)),
                            ("clock", .string(refusal.clock)),
                            ("reason", .string(refusal.reason)),
                            ("recordedAt", .string(ISO8601.string(from: refusal.recordedAt))),
                        ])
                    }))
            return
        }
        for refusal in refusals {
            let way = refusal.direction == .push ? "pushed" : "pulled"
            context.console.print(
                "\(ISO8601.string(from: refusal.recordedAt))  \(way)  \(refusal.subject)"
                    + "  (clock \(refusal.clock)): \(refusal.reason)\n")
        }
    }
}

extension SyncRefusedCommand {
    init(parsing parsed: ParsedArguments) throws(UsageError) {
        self.init(limit: try parsed[SyncGroup.limit] ?? 20)
    }
}
