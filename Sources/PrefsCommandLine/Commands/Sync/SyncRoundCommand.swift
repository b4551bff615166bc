import Dispatch
import PrefsKit
import PrefsPostgreSQL
import PrefsSync
import Synchronization

#if canImport(FoundationEssentials) && !PREFS_FULL_FOUNDATION
    import FoundationEssentials
#else
    import Foundation
#endif
#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// `prefs sync [round] [--hub URI] [--watch]`: one round with the hub, or rounds until interrupted.
struct SyncRoundCommand: RunnableCommand {
    static var name: String { "round" }
    static let hub = Option<String>(
        "hub", value: "uri",
        help: "The hub's connection string, or a sync server's https:// address (default: the"
            + " one remembered).")
    static let tokenFile = Option<String>(
        "token-file", value: "file",
        help: "The device token for a sync server, in a file only you can read"
            + " (default: PREFS_TOKEN_FILE).")
    static let caFile = Option<String>(
        "ca-file", value: "file",
        help: "A private CA's certificates (PEM) for a sync server's TLS (default: the system's).")
    static let token = Option<String>(
        "token", value: "token", help: "Refused: a token on the command line shows in 'ps'.")
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

            A sync server (prefs-server, docs/sync-protocol.md) is named by its https://
            address (http:// only on this machine), with the device token in --token-file:
            the device then needs no database login. The file remembers the address, never
            the token.
            """,
        options: [hub.spec, tokenFile.spec, caFile.spec, token.spec, watch.spec], scope: .sync)

    var hub: String? = nil
    var watch = false
    var tokenFile: String? = nil
    var caFile: String? = nil
    var token: String? = nil

    func run(_ context: CommandContext) throws {
        if token != nil {
            throw CommandFailure(
                "A token on the command line is visible to every user in 'ps': put it in a file"
                    + " only you can read and name it with --token-file",
                exitCode: CommandFailure.usage)
        }
        if let hub, SyncServerAddress.isServer(hub) {
            return try runThroughServer(hub, context)
        }
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
        do {
            try connectAndRun(database, context)
        } catch {
            DeviceSync.recordFailure(
                error, of: database, exitCode: Int(CommandFailure(error).exitCode))
            throw error
        }
    }

    /// Opens the hub named or remembered and runs the rounds.
    private func connectAndRun(_ database: AppDatabase, _ context: CommandContext) throws {
        let sync: DeviceSync
        if let hub {
            context.warnOfPassword(in: hub)
            sync = try DeviceSync(
                database: database, hub: hub, account: context.requestedAccount,
                hubOptions: context.serverOptions())
        } else if let status = try DeviceSync.status(of: database), let remembered = status.hub {
            if SyncServerAddress.isServer(remembered) {
                return try runThroughServer(remembered, context)
            }
            sync = try DeviceSync(
                database: database, hub: remembered,
                account: context.requestedAccount ?? status.account,
                hubOptions: context.serverOptions())
        } else {
            throw CommandFailure(
                "This database has never synced: name the hub with --hub postgresql://...",
                exitCode: CommandFailure.usage)
        }
        try round(sync, context)
    }

    /// Rounds with a sync server, with the device token of the token file.
    private func runThroughServer(_ server: String, _ context: CommandContext) throws {
        guard SyncServerAddress.isAcceptable(server) else { throw SyncError.insecureServer(server) }
        guard
            let tokenFile = tokenFile
                ?? context.console.variable("PREFS_TOKEN_FILE").flatMap({ $0.isEmpty ? nil : $0 })
        else {
            throw CommandFailure(
                "A sync server needs this device's token: name its file with --token-file (or"
                    + " PREFS_TOKEN_FILE)", exitCode: CommandFailure.usage)
        }
        let token = try Self.readToken(tokenFile, context)
        if let reason = CurlTransport.loadFailure { throw DatabaseError.unsupported(reason) }
        let database = try context.openForWriting()
        // Named (--ca-file, PREFS_CA_FILE), else the one the device kept.
        let named = Self.certificateAuthority(caFile, context).map(Self.absolute)
        let authority = try named ?? DeviceSync.certificateAuthorityFile(of: database)
        let transport = CurlTransport(server: server, certificateAuthorityFile: authority)
        do {
            let sync = try DeviceSync(
                database: database,
                connector: HTTPHubConnector(transport: transport, token: token),
                account: context.requestedAccount)
            try round(sync, context) {
                // The server was reached with it: kept for the next rounds.
                if let named { try? DeviceSync.rememberCertificateAuthority(named, of: database) }
            }
        } catch {
            DeviceSync.recordFailure(
                error, of: database, exitCode: Int(CommandFailure(error).exitCode))
            throw error
        }
    }

    /// A path as it reads from any folder.
    static func absolute(_ path: String) -> String {
        path.hasPrefix("/") ? path : FileManager.default.currentDirectoryPath + "/" + path
    }

    /// The private CA's file: `--ca-file`, else `PREFS_CA_FILE`; nil: the system's.
    static func certificateAuthority(_ given: String?, _ context: CommandContext) -> String? {
        given ?? context.console.variable("PREFS_CA_FILE").flatMap { $0.isEmpty ? nil : $0 }
    }

    /// The token of a file only its owner can read: one line, no more than 4 KB.
    static func readToken(_ path: String, _ context: CommandContext) throws -> String {
        var status = stat()
        if stat(path, &status) == 0, status.st_mode & 0o077 != 0 {
            throw CommandFailure(
                "The token file '\(path)' can be read by others: make it yours alone"
                    + " (chmod 600 '\(path)')", exitCode: CommandFailure.noPermission)
        }
        let bytes = try FileAccess.read(path, console: context.console)
        var line = bytes.prefix(4096)
        while let last = line.last, last == 0x0A || last == 0x0D || last == 0x20 {
            line.removeLast()
        }
        let text = String(decoding: line, as: UTF8.self)
        guard bytes.count <= 4096, !text.isEmpty,
            !line.contains(where: { $0 < 0x21 || $0 == 0x7F })
        else {
            throw CommandFailure(
                "The token file '\(path)' must hold the token alone, on one line",
                exitCode: CommandFailure.dataError)
        }
        return text
    }

    /// `completed`: told after the first round that completes.
    private func round(
        _ sync: DeviceSync, _ context: CommandContext,
        completed: @escaping @Sendable () -> Void = {}
    ) throws {
        if watch { try watchSync(sync, context, completed: completed) }
        let report = try sync.sync()
        completed()
        if context.globals.isJSON {
            context.printJSON(SyncText.json(report))
        } else {
            context.console.print(SyncText.text(report) + "\n")
        }
    }

    /// Rounds until SIGINT or SIGTERM: a line for each round that moved something, and
    /// for each failure (the changes wait for the next round, after a wait that grows with
    /// each failure in a row). A refusal retrying cannot change (a revoked token, a login
    /// refused) ends it with its exit code, 77.
    private func watchSync(
        _ sync: DeviceSync, _ context: CommandContext, completed: @escaping @Sendable () -> Void
    ) throws -> Never {
        CommandContext.exitOnStopSignals()
        let isJSON = context.globals.isJSON
        let console = context.console
        let done = DispatchSemaphore(value: 0)
        let refusal = Mutex<(any Error)?>(nil)
        Task.detached {
            await sync.watch { outcome in
                switch outcome {
                case .success(let report):
                    completed()
                    guard report.pushed + report.pulled + report.conflicts > 0 else { return }
                    let line =
                        isJSON
                        ? SyncText.json(report).serialized(.spaced) : SyncText.text(report)
                    _ = console.print(line + "\n")
                case .failure(let error) where DeviceSync.isRefusal(error):
                    refusal.withLock { $0 = error }
                case .failure(let error):
                    let failure = CommandFailure(error)
                    console.message("Error: \(failure.message) (trying again)")
                }
            }
            done.signal()
        }
        done.wait()
        if let error = refusal.withLock({ $0 }) { throw error }
        exit(0)
    }
}

extension SyncRoundCommand {
    init(parsing parsed: ParsedArguments) throws(UsageError) {
        self.init(
            hub: try parsed[Self.hub], watch: parsed[Self.watch],
            tokenFile: try parsed[Self.tokenFile], caFile: try parsed[Self.caFile],
            token: try parsed[Self.token])
    }
}
