import Dispatch
import PrefsKit
import PrefsPostgreSQL

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// `prefs sync [round] [--hub URI] [--watch]`: one round with the hub, or rounds until interrupted.
struct SyncRoundCommand: RunnableCommand {
    static var name: String { "round" }
    static let hub = Option<String>(
        "hub", value: "uri", help: "The hub's connection string (default: the one remembered).")
    static let watch = Flag(
        "watch", help: "Keep syncing, soon after each change here or on the hub, until interrupted."
    )
    static let spec = CommandSpec(
        Self.self,
        abstract: "Push this file's changes to the hub and pull the other devices'.",
        discussion: """
            One round: pushes this file's changes to the hub (a PostgreSQL database of the
            account), then pulls the other devices'. The first round turns sync on and
            remembers the hub and the account in the file (never a password: it comes from
            ~/.pgpass or PGPASSWORD). Selections and keys declared --device-local stay here.
            A first round that fails turns nothing on. Exits 75 when the hub cannot be
            reached; the changes wait for the next round. A change the hub refuses (it
            breaks the rules, or this device's clock is ahead of the hub's by more than the
            hub's bound) is counted in the round's line; one refused for the clock stays
            pending until the clock is right. A build without PostgreSQL exits 69 here.
            """,
        options: [hub.spec, watch.spec], scope: .sync)

    var hub: String? = nil
    var watch = false

    func run(_ context: CommandContext) throws {
        // The status, conflicts, refusals and leaving read the file alone; a round needs a hub.
        guard AppDatabase.supportsServers else {
            throw DatabaseError.unsupported(
                "This build of prefs has no PostgreSQL (the fully static build leaves libpq"
                    + " out); a sync round needs it: build prefs with 'swift build -c release'")
        }
        // Refused before the device file is opened (or made): a path named as a server
        // leaves nothing behind.
        if let hub, !AppDatabase.isConnectionString(hub) {
            throw SyncError.hubIsNotAServer(target: hub)
        }
        if let standby = context.serverOptions().standbyTarget,
            !AppDatabase.isConnectionString(standby)
        {
            throw SyncError.standbyIsNotAServer(target: standby)
        }
        let database = try context.openForWriting()
        let sync: DeviceSync
        if let hub {
            context.warnOfPassword(in: hub)
            sync = try DeviceSync(
                database: database, hub: hub, account: context.requestedAccount,
                hubOptions: context.serverOptions())
        } else if let status = try DeviceSync.status(of: database), let remembered = status.hub {
            sync = try DeviceSync(
                database: database, hub: remembered,
                account: context.requestedAccount ?? status.account,
                hubOptions: context.serverOptions())
        } else {
            throw CommandFailure(
                "This database has never synced: name the hub with --hub postgresql://...",
                exitCode: CommandFailure.usage)
        }
        if watch { try watchSync(sync, context) }
        let report = try sync.sync()
        if context.globals.isJSON {
            context.printJSON(SyncText.json(report))
        } else {
            context.console.print(SyncText.text(report) + "\n")
        }
    }

    /// Rounds until SIGINT or SIGTERM: a line for each round that moved something, and
    /// for each failure (the changes wait for the next round).
    private func watchSync(_ sync: DeviceSync, _ context: CommandContext) throws -> Never {
        CommandContext.exitOnStopSignals()
        let isJSON = context.globals.isJSON
        let console = context.console
        let done = DispatchSemaphore(value: 0)
        Task.detached {
            await sync.watch { outcome in
                switch outcome {
                case .success(let report):
                    guard report.pushed + report.pulled + report.conflicts > 0 else { return }
                    let line =
                        isJSON
                        ? SyncText.json(report).serialized(.spaced) : SyncText.text(report)
                    _ = console.print(line + "\n")
                case .failure(let error):
                    let failure = CommandFailure(error)
                    console.message("Error: \(failure.message) (trying again)")
                }
            }
            done.signal()
        }
        done.wait()
        exit(0)
    }
}

extension SyncRoundCommand {
    init(parsing parsed: ParsedArguments) throws(UsageError) {
        self.init(hub: try parsed[Self.hub], watch: parsed[Self.watch])
    }
}
