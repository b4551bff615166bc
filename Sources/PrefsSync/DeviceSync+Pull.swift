import PrefsKit

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

extension DeviceSync {
    /// How far a device's clock may be from the hub's before a round and `sync status` say
    /// so.
    public static let clockToleranceMilliseconds: Int64 = 2_000

    /// Pulls every change after the cursor, a page at a time: each page is applied in one
    /// device transaction with its cursor, and holds whole pushes, so that a push of another
    /// device is never applied in part; a round cut short keeps the pages it applied, and
    /// the next one goes on from there. `pushed`: the number of this round's push;
    /// `firstPage`: the first page, when a round in one request brought it.
    func pull(
        mayReadStandby: Bool, pushed: Int64?, everything: Bool, firstPage: RoundPage? = nil
    ) throws -> (
        pulled: Int, conflicts: Int, refused: Int, fromStandby: Bool, restored: Bool,
        clockOffset: Int64?
    ) {
        guard let device = try database.withReader({ try Self.repository($0).deviceState() }) else {
            return (0, 0, 0, false, false, nil)
        }
        // A file the push found restored pulls every change, as one the pull finds so.
        var cursor = everything ? 0 : device.cursor
        let seen = max(cursor, pushed ?? 0)
        var total = (applied: 0, conflicts: 0, refused: 0)
        var first: (fromStandby: Bool, restored: Bool, offset: Int64?)?
        var hasMore = true
        var pages = 0
        while hasMore {
            var from = cursor
            pages += 1
            var before = try database.withReader {
                try Self.repository($0).wallClockMilliseconds()
            }
            // The first page only may come from a standby, and only it carries the device's
            // clock (a restored file is found at the first page, which then starts at 0).
            let fromStandby =
                mayReadStandby && first == nil && firstPage == nil
                ? pullFromStandby(after: cursor, holding: seen, pushed: pushed, clock: device.clock)
                : nil
            let brought = first == nil ? firstPage : nil
            let (pulled, bound) =
                try fromStandby
                ?? brought.map { ($0.pull, $0.clockBound) }
                ?? withHub {
                    (
                        try $0.pullRound(
                            after: cursor, device: deviceID, leavingOut: pushed,
                            deviceClock: first == nil ? device.clock : nil,
                            limit: pullLimit.withLock { $0 }),
                        try $0.clockBound()
                    )
                }
            var after = try database.withReader { try Self.repository($0).wallClockMilliseconds() }
            if let brought { (before, after) = (brought.sent, brought.answered) }
            if first == nil {
                // The device's clock against the hub's, read halfway through the round trip;
                // reported beyond the tolerance and half the trip (the reading's own
                // uncertainty).
                let offset = pulled.hubMilliseconds.flatMap { hub -> Int64? in
                    let difference = (before + after) / 2 - hub
                    let tolerance = Self.clockToleranceMilliseconds + (after - before) / 2
                    return abs(difference) > tolerance ? difference : nil
                }
                try database.withWriter {
                    try Self.repository($0).setClockOffset(milliseconds: offset)
                }
                first = (fromStandby != nil, pulled.isRestored, offset)
                if pulled.isRestored {
                    cursor = 0
                    from = 0
                }
            }
            let rows = pulled.rows
            // Past the round's own push too, which the pull leaves out.
            let through = pulled.through ?? rows.last?.sequence
            if !rows.isEmpty {
                let outcome = try database.withWriter { state in
                    let sync = try Self.repository(state)
                    var merge = SyncMerge(state: state, sync: sync)
                    merge.ceilingMilliseconds = SyncValidation.clockCeiling(
                        hubMilliseconds: pulled.hubMilliseconds, bound: bound, wall: after)
                    let outcome = try merge.apply(rows.map(\.change))
                    if let through { try sync.setCursor(through, pulledAt: Date()) }
                    return outcome
                }
                total.applied += outcome.applied
                total.conflicts += outcome.conflicts
                total.refused += outcome.refused
            }
            if let through { cursor = max(cursor, through) }
            // A page that moves the cursor nowhere ends the pull, whatever it says.
            hasMore = pulled.hasMore && cursor > from
        }
        // A round in one request reported the cursor it started from; the next round
        // reports this one, unless more pages were pulled here.
        if firstPage == nil || pages > 1 {
            try withHub { try $0.report(device: deviceID, cursor: cursor) }
        }
        let pulledAt = Date()
        try database.withWriter { state in
            try Self.repository(state).setCursor(cursor, pulledAt: pulledAt)
        }
        return (
            total.applied, total.conflicts, total.refused, first?.fromStandby ?? false,
            first?.restored ?? false, first?.offset ?? nil
        )
    }

    /// The pull from the hub options' `standbyTarget` once it holds the account up to
    /// `seen` (what the device pulled or pushed): nil when there is no standby, it did not
    /// catch up within the wait, it cannot be reached, or the pull must list every field.
    /// A standby replays the hub's commits in order and an account's pushes commit in the
    /// order of their numbers, so a standby at `seen` lacks nothing the device has seen:
    /// the pull can move the cursor only over what the standby holds, and never hands the
    /// device a state older than its own push.
    func pullFromStandby(
        after cursor: Int64, holding seen: Int64, pushed: Int64?, clock: String?
    ) -> (SyncPull, Int64)? {
        guard let wait = connector.standbyWaitMilliseconds else { return nil }
        return standby.withLock { (opened: inout SyncHubHandle?) -> (SyncPull, Int64)? in
            do {
                let standby = try opened ?? connector.openStandby(account: account)
                opened = standby
                // A replica of this hub, or nothing: another database (a mistyped string,
                // another service's hub) has other numbers for the account, and its changes
                // would be merged here and pushed to the hub. The account's channel token,
                // made once on the hub and replicated with it, tells them apart.
                let hubChannel = try withHub { $0.channel }
                return try standby { hub -> (SyncPull, Int64)? in
                    guard !hubChannel.isEmpty, hub.channel == hubChannel else { return nil }
                    let deadline = ContinuousClock.now + .milliseconds(wait)
                    while try hub.position() < seen {
                        guard ContinuousClock.now < deadline else { return nil }
                        usleep(5_000)
                    }
                    let pulled = try hub.pullRound(
                        after: cursor, device: deviceID, leavingOut: pushed, deviceClock: clock,
                        limit: pullLimit.withLock { $0 })
                    // Another host of a multi-host string may have answered the pull.
                    guard pulled.position >= seen else { return nil }
                    return (pulled, try hub.clockBound())
                }
            } catch {
                // Passed over: the hub answers instead.
                opened = nil
                return nil
            }
        }
    }
}
