import PrefsKit
import PrefsPostgreSQL
import PrefsSync

/// `prefs sync leave`: turns sync off; the data stays.
struct SyncLeaveCommand: RunnableCommand {
    static var name: String { "leave" }
    static let tokenFile = Option<String>(
        "token-file", value: "file",
        help: "The device token, to tell a sync server (default: PREFS_TOKEN_FILE).")
    static let caFile = Option<String>(
        "ca-file", value: "file", help: "A private CA's certificates (PEM) for a sync server.")
    static let spec = CommandSpec(
        Self.self, abstract: "Turn sync off for this device; its data stays.",
        options: [tokenFile.spec, caFile.spec], scope: .sync)

    var tokenFile: String? = nil
    var caFile: String? = nil

    func run(_ context: CommandContext) throws {
        // Read first: leaving a file that does not sync (or is not there) makes nothing.
        guard let reader = try context.openForReading(), try DeviceSync.status(of: reader) != nil
        else {
            throw CommandFailure(
                "This database does not sync", exitCode: CommandFailure.notFound)
        }
        let database = try context.openForWriting()
        guard let status = try DeviceSync.status(of: database) else {
            throw CommandFailure(
                "This database does not sync", exitCode: CommandFailure.notFound)
        }
        var toldHub = false
        if let hub = status.hub, SyncServerAddress.isServer(hub) {
            // A sync server is told with the device's token, when it is given.
            let file =
                tokenFile
                ?? context.console.variable("PREFS_TOKEN_FILE").flatMap { $0.isEmpty ? nil : $0 }
            if SyncServerAddress.isAcceptable(hub), let file,
                let token = try? SyncRoundCommand.readToken(file, context),
                CurlTransport.loadFailure == nil,
                let sync = try? DeviceSync(
                    database: database,
                    connector: HTTPHubConnector(
                        transport: CurlTransport(
                            server: hub,
                            certificateAuthorityFile: SyncRoundCommand.certificateAuthority(
                                caFile, context)),
                        token: token),
                    account: status.account)
            {
                toldHub = try sync.leave()
            } else {
                try DeviceSync.leave(database)
            }
        } else if let hub = status.hub,
            let sync = try? DeviceSync(database: database, hub: hub, account: status.account)
        {
            toldHub = try sync.leave()
        } else {
            try DeviceSync.leave(database)
        }
        let pending = status.pending
        if context.globals.isJSON {
            context.printJSON(
                .object([
                    ("left", .bool(true)), ("hubTold", .bool(toldHub)),
                    ("pendingDropped", .integer(pending)),
                ]))
            return
        }
        context.console.print(
            "This device no longer syncs; its data stays."
                + (pending > 0
                    ? " \(pending) changes that never reached the hub stay here only." : "")
                + (toldHub
                    ? "" : " (The hub could not be told; it forgets the device in time.)")
                + "\n")
    }
}

extension SyncLeaveCommand {
    init(parsing parsed: ParsedArguments) throws(UsageError) {
        self.init(tokenFile: try parsed[Self.tokenFile], caFile: try parsed[Self.caFile])
    }
}
