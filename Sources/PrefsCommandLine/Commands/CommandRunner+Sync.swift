import Dispatch
import PrefsKit

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

extension CommandRunner {
    /// The account asked for: `--account`, else `$PREFS_ACCOUNT`.
    private var requestedAccount: String? {
        globals.account ?? console.variable("PREFS_ACCOUNT").flatMap { $0.isEmpty ? nil : $0 }
    }

    #if PREFS_NO_POSTGRES
        func sync(hub: String?, watch: Bool) throws {
            throw Self.noPostgreSQL
        }

        func syncStatus() throws { throw Self.noPostgreSQL }

        func syncConflicts(limit: Int) throws { throw Self.noPostgreSQL }

        func syncLeave() throws { throw Self.noPostgreSQL }

        func syncRefused(limit: Int) throws { throw Self.noPostgreSQL }

        private static let noPostgreSQL = CommandFailure(
            "This build of prefs has no PostgreSQL (the fully static one); sync needs it",
            exitCode: CommandFailure.usage)
    #else
        func sync(hub: String?, watch: Bool) throws {
            let database = try openForWriting()
            let sync: DeviceSync
            if let hub {
                warnOfPassword(in: hub)
                sync = try DeviceSync(database: database, hub: hub, account: requestedAccount)
            } else if let status = try DeviceSync.status(of: database), let remembered = status.hub
            {
                sync = try DeviceSync(
                    database: database, hub: remembered, account: requestedAccount ?? status.account
                )
            } else {
                throw CommandFailure(
                    "This database has never synced: name the hub with --hub postgresql://...",
                    exitCode: CommandFailure.usage)
            }
            if watch { try watchSync(sync) }
            let report = try sync.sync()
            if globals.isJSON {
                printJSON(Self.json(report))
            } else {
                console.print(Self.text(report) + "\n")
            }
        }

        private static func json(_ report: SyncReport) -> JSONValue {
            .object([
                ("pushed", .integer(report.pushed)), ("pulled", .integer(report.pulled)),
                ("conflicts", .integer(report.conflicts)), ("pending", .integer(report.pending)),
                ("refused", .integer(report.refused)),
                ("waitingForClock", .integer(report.waitingForClock)),
                (
                    "clockAheadMilliseconds",
                    report.clockAheadMilliseconds.map { .integer(Int($0)) } ?? .null
                ),
            ])
        }

        private static func text(_ report: SyncReport) -> String {
            var line =
                "Pushed \(report.pushed), pulled \(report.pulled), conflicts \(report.conflicts),"
                + " pending \(report.pending)"
            if report.refused > 0 { line += ", refused \(report.refused) (prefs sync status)" }
            if let ahead = report.clockAheadMilliseconds, report.waitingForClock > 0 {
                line +=
                    "\nThis device's clock is \(aheadText(ahead)) ahead of the hub's:"
                    + (report.waitingForClock == 1
                        ? " 1 change waits" : " \(report.waitingForClock) changes wait")
                    + " until it is right"
            }
            return line
        }

        /// A clock's lead, as a person reads it.
        private static func aheadText(_ milliseconds: Int64) -> String {
            let seconds = milliseconds / 1000
            switch seconds {
            case ..<120: return "\(seconds) seconds"
            case ..<7_200: return "\(seconds / 60) minutes"
            case ..<172_800: return "\(seconds / 3_600) hours"
            default: return "\(seconds / 86_400) days"
            }
        }

        func syncLeave() throws {
            // Read first: leaving a file that does not sync (or is not there) makes nothing.
            guard let reader = try openForReading(), try DeviceSync.status(of: reader) != nil
            else {
                throw CommandFailure(
                    "This database does not sync", exitCode: CommandFailure.notFound)
            }
            let database = try openForWriting()
            guard let status = try DeviceSync.status(of: database) else {
                throw CommandFailure(
                    "This database does not sync", exitCode: CommandFailure.notFound)
            }
            var toldHub = false
            if let hub = status.hub,
                let sync = try? DeviceSync(database: database, hub: hub, account: status.account)
            {
                toldHub = try sync.leave()
            } else {
                try DeviceSync.leave(database)
            }
            let pending = status.pending
            if globals.isJSON {
                printJSON(
                    .object([
                        ("left", .bool(true)), ("hubTold", .bool(toldHub)),
                        ("pendingDropped", .integer(pending)),
                    ]))
                return
            }
            console.print(
                "This device no longer syncs; its data stays."
                    + (pending > 0
                        ? " \(pending) changes that never reached the hub stay here only." : "")
                    + (toldHub
                        ? "" : " (The hub could not be told; it forgets the device in time.)")
                    + "\n")
        }

        /// Rounds until SIGINT or SIGTERM: a line for each round that moved something, and
        /// for each failure (the changes wait for the next round).
        private func watchSync(_ sync: DeviceSync) throws -> Never {
            Self.exitOnStopSignals()
            let isJSON = globals.isJSON
            let console = self.console
            let done = DispatchSemaphore(value: 0)
            Task.detached {
                await sync.watch { outcome in
                    switch outcome {
                    case .success(let report):
                        guard report.pushed + report.pulled + report.conflicts > 0 else { return }
                        let line =
                            isJSON
                            ? Self.json(report).serialized(.spaced) : Self.text(report)
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

        func syncStatus() throws {
            guard let database = try openForReading(),
                let status = try DeviceSync.status(of: database)
            else {
                throw CommandFailure(
                    "This database has never synced: run 'prefs sync --hub postgresql://...'",
                    exitCode: CommandFailure.notFound)
            }
            if globals.isJSON {
                printJSON(
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
                        ("refused", .integer(status.refused)),
                        (
                            "clockAheadMilliseconds",
                            status.clockAheadMilliseconds.map { .integer(Int($0)) } ?? .null
                        ),
                    ]))
                return
            }
            let never = "never"
            console.print(
                """
                Device:     \(status.deviceID)
                Hub:        \(status.hub.map(DatabaseLocation.shown) ?? "none") (account \(status.account ?? "none"))
                Last push:  \(status.lastPush.map(ISO8601.string(from:)) ?? never)
                Last pull:  \(status.lastPull.map(ISO8601.string(from:)) ?? never)
                Pending:    \(status.pending) changes
                Conflicts:  \(status.conflicts) kept (prefs sync conflicts)
                Refused:    \(status.refused) changes
                Clock:      \(status.clockAheadMilliseconds.map { "\(Self.aheadText($0)) ahead of the hub's: changes wait until it is right" } ?? "in step with the hub")
                Last error: \(status.lastError ?? "none")

                """)
        }

        func syncRefused(limit: Int) throws {
            let database = try openExistingForReading()
            let refusals = try DeviceSync.refusals(of: database, limit: limit)
            if globals.isJSON {
                printJSON(
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
                console.print(
                    "\(ISO8601.string(from: refusal.recordedAt))  \(way)  \(refusal.subject)"
                        + "  (clock \(refusal.clock)): \(refusal.reason)\n")
            }
        }

        func syncConflicts(limit: Int) throws {
            let database = try openExistingForReading()
            let conflicts = try DeviceSync.conflicts(of: database, limit: limit)
            if globals.isJSON {
                printJSON(.array(conflicts.map(Self.json)))
                return
            }
            for conflict in conflicts {
                let lost =
                    conflict.lostPresent
                    ? conflict.lostValue.map(ValueText.listed) ?? "(no value)" : "(removed)"
                console.print(
                    "\(ISO8601.string(from: conflict.recordedAt))"
                        + "  \(ValueText.listed(Self.subject(conflict.subject)))"
                        + "  lost \(lost) from \(conflict.lostDevice) at"
                        + " \(ISO8601.string(from: conflict.lostAt)), won by \(conflict.wonDevice)\n"
                )
            }
        }

        private static func subject(_ subject: SyncConflict.Subject) -> String {
            switch subject {
            case .preference(let suite, let key): "\(suite) \(key)"
            case .bookmark(let kind, let itemID, let field): "bookmark \(kind)/\(itemID) \(field)"
            case .tag(let kind, let itemID, let tag): "bookmark \(kind)/\(itemID) tag \(tag)"
            }
        }

        private static func json(_ conflict: SyncConflict) -> JSONValue {
            .object([
                ("subject", .string(subject(conflict.subject))),
                ("lostValue", conflict.lostValue.map { .string(ValueText.plain($0)) } ?? .null),
                ("lostPresent", .bool(conflict.lostPresent)),
                ("lostDevice", .string(conflict.lostDevice)),
                ("lostAt", .string(ISO8601.string(from: conflict.lostAt))),
                ("wonDevice", .string(conflict.wonDevice)),
                ("recordedAt", .string(ISO8601.string(from: conflict.recordedAt))),
            ])
        }
    #endif
}
