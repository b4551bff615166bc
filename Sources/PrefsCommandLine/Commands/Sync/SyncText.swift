import PrefsKit
import PrefsSync

/// How sync's reports, conflicts and clocks print.
enum SyncText {
    static func json(_ report: SyncReport) -> JSONValue {
        .object([
            ("pushed", .integer(report.pushed)), ("pulled", .integer(report.pulled)),
            ("conflicts", .integer(report.conflicts)), ("pending", .integer(report.pending)),
            ("refused", .integer(report.refused)),
            ("waitingForClock", .integer(report.waitingForClock)),
            (
                "clockAheadMilliseconds",
                report.clockAheadMilliseconds.map { .integer(Int($0)) } ?? .null
            ),
            ("pulledFromStandby", .bool(report.pulledFromStandby)),
            ("restored", .bool(report.restored)),
            (
                "clockOffsetMilliseconds",
                report.clockOffsetMilliseconds.map { .integer(Int($0)) } ?? .null
            ),
        ])
    }

    static func text(_ report: SyncReport) -> String {
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
        } else if let offset = report.clockOffsetMilliseconds {
            line += "\n" + offsetText(offset)
        }
        if report.restored {
            line +=
                "\nThis device's file is older than what it had pushed (restored from a copy):"
                + " it pulled every change again"
        }
        return line
    }

    /// What a device's clock off from the hub's does, in one line.
    static func offsetText(_ milliseconds: Int64) -> String {
        milliseconds < 0
            ? "This device's clock is \(aheadText(-milliseconds)) behind the hub's: its changes"
                + " lose to older ones made elsewhere until it is set right"
            : "This device's clock is \(aheadText(milliseconds)) ahead of the hub's: its changes"
                + " win over later ones made elsewhere until it is set right"
    }

    /// The status's clock line.
    static func clockText(_ status: SyncStatus) -> String {
        if let ahead = status.clockAheadMilliseconds {
            return "\(aheadText(ahead)) ahead of the hub's: changes wait until it is right"
        }
        guard let offset = status.clockOffsetMilliseconds else { return "in step with the hub" }
        return "\(aheadText(abs(offset))) \(offset < 0 ? "behind" : "ahead of") the hub's at the"
            + " last round: \(offset < 0 ? "its changes lose to older ones" : "its changes win over later ones")"
    }

    /// A clock's lead, as a person reads it.
    static func aheadText(_ milliseconds: Int64) -> String {
        let seconds = milliseconds / 1000
        switch seconds {
        case ..<120: return "\(seconds) seconds"
        case ..<7_200: return "\(seconds / 60) minutes"
        case ..<172_800: return "\(seconds / 3_600) hours"
        default: return "\(seconds / 86_400) days"
        }
    }

    static func subject(_ subject: SyncConflict.Subject) -> String {
        switch subject {
        case .preference(let suite, let key): "\(suite) \(key)"
        case .bookmark(let kind, let itemID, let field): "bookmark \(kind)/\(itemID) \(field)"
        case .tag(let kind, let itemID, let tag): "bookmark \(kind)/\(itemID) tag \(tag)"
        }
    }

    static func json(_ conflict: SyncConflict) -> JSONValue {
        .object([
            ("subject", .string(subject(conflict.subject))),
            ("lostValue", conflict.lostValue.map { .string(ValueText.plain($0)) } ?? .null),
            ("lostPresent", .bool(conflict.lostPresent)),
            ("lostDevice", .string(conflict.lostDevice)),
            ("lostDeviceName", conflict.lostDeviceName.map(JSONValue.string) ?? .null),
            ("lostAt", .string(ISO8601.string(from: conflict.lostAt))),
            ("wonDevice", .string(conflict.wonDevice)),
            ("wonDeviceName", conflict.wonDeviceName.map(JSONValue.string) ?? .null),
            ("recordedAt", .string(ISO8601.string(from: conflict.recordedAt))),
        ])
    }

    /// The last error, when and with which exit code; "none" after a round that completed.
    static func lastErrorText(_ status: SyncStatus) -> String {
        guard let message = status.lastError else { return "none" }
        var notes: [String] = []
        if let at = status.lastErrorAt { notes.append(ISO8601.string(from: at)) }
        if let code = status.lastErrorExitCode { notes.append("exit \(code)") }
        return notes.isEmpty ? message : message + " (" + notes.joined(separator: ", ") + ")"
    }
}

extension CommandContext {
    /// The account asked for: `--account`, else `$PREFS_ACCOUNT`.
    var requestedAccount: String? {
        globals.account ?? console.variable("PREFS_ACCOUNT").flatMap { $0.isEmpty ? nil : $0 }
    }

}
