import PrefsKit

#if canImport(FoundationEssentials) && !PREFS_FULL_FOUNDATION
    import FoundationEssentials
#else
    import Foundation
#endif

extension DeviceSync {
    /// What a push did.
    struct PushResult {
        var accepted = 0
        var conflicts = 0
        var refused = 0
        /// Changes kept pending because the hub found this device's clock ahead.
        var waitingForClock = 0
        /// How far ahead, when it still is.
        var clockAhead: Int64?
        /// Changes stamped again because the clock came right, or above what the hub took
        /// from this device.
        var restamped = 0
        /// Whether the hub found this file older than what the device pushed.
        var restored = false
        /// The number the hub gave the push's changes; nil when it stored none.
        var sequence: Int64?
    }

    /// Pushes every pending change in one hub transaction, so that the other devices
    /// never see part of a local transaction; the outbox is cleared once it committed.
    /// A change the hub refuses for its rules is recorded and no longer pending; one it
    /// refuses for a clock too far ahead stays pending, and the device says so (or, when
    /// its clock is right again, stamps it again).
    func push() throws -> PushResult {
        let (pending, cursor) = try database.withReader { state in
            let sync = try Self.repository(state)
            return (
                try sync.pendingChanges(limit: Int.max), try sync.deviceState()?.cursor ?? 0
            )
        }
        guard !pending.isEmpty else { return PushResult() }
        if let tap = Self.pushTap.withLock({ $0 }) { tap(deviceID, pending) }
        let outcome = try withHub { try $0.push(pending, device: deviceID, cursor: cursor) }
        return try apply(outcome, of: pending)
    }

    /// Takes what the hub answered to a push of `pending`: confirms what it took, records
    /// conflicts and refusals, applies the winners, stamps again what must go again.
    func apply(_ outcome: SyncPushOutcome, of pending: [SyncChange]) throws -> PushResult {
        let now = Date()
        return try database.withWriter { state in
            let sync = try Self.repository(state)
            var result = PushResult(
                accepted: outcome.accepted, conflicts: 0, refused: outcome.refused.count)
            result.sequence = outcome.sequence
            // Kept pending: those refused for a clock ahead, and those to stamp again above
            // what the hub took from this device (a restored file's).
            let waiting = Set((outcome.clockAhead + outcome.stale).map(\.address))
            // What the hub took is within its bound of its clock: seen, however far behind
            // this device's wall clock is (a later stamp goes past it).
            let ceiling = SyncValidation.clockCeiling(
                hubMilliseconds: outcome.hubClock > 0 ? outcome.hubClock : nil,
                bound: outcome.clockBound, wall: try sync.wallClockMilliseconds())
            try sync.confirm(
                waiting.isEmpty ? pending : pending.filter { !waiting.contains($0.address) },
                ceilingMilliseconds: ceiling)
            // A side that loses to the same value loses nothing: no conflict.
            let pushed = Dictionary(pending.map { ($0.address, $0) }) { $1 }
            let won = Dictionary(outcome.winners.map { ($0.address, $0) }) { $1 }
            for (change, winner) in outcome.lost
            where !change.saysTheSame(as: won[change.address]) {
                try sync.recordConflict(lost: change, wonBy: winner, at: now)
                result.conflicts += 1
            }
            for (change, winner) in outcome.overwritten
            where !change.saysTheSame(as: pushed[change.address]) {
                try sync.recordConflict(lost: change, wonBy: winner, at: now)
                result.conflicts += 1
            }
            // What they lost to is applied now (its conflict is kept above): the device
            // may have pulled it before, and a pull would not bring it again.
            if !outcome.winners.isEmpty {
                var merge = SyncMerge(state: state, sync: sync)
                merge.ceilingMilliseconds = ceiling
                _ = try merge.apply(outcome.winners)
            }
            // Stamped at or below the newest clock the hub took from this device, with other
            // content: this file is an older copy whose clock came back. Stamped again above
            // it, they go in this round (docs/sync.md, "A restore").
            if let pushedClock = outcome.pushedClock.flatMap(HybridClock.init),
                !outcome.stale.isEmpty
            {
                try sync.restamp(outcome.stale, above: pushedClock)
                result.restamped += outcome.stale.count
                result.restored = true
            }
            for (change, reason) in outcome.refused {
                try sync.recordRefused(change, direction: "push", reason: reason, at: now)
            }
            if outcome.clockAhead.isEmpty {
                try sync.setClockAhead(milliseconds: nil, at: now)
            } else if try sync.wallClockMilliseconds() <= outcome.hubClock + outcome.clockBound {
                // The stamps were ahead, the clock is not (any more): stamp them again.
                try sync.restamp(outcome.clockAhead, boundMilliseconds: outcome.clockBound)
                try sync.setClockAhead(milliseconds: nil, at: now)
                result.restamped += outcome.clockAhead.count
            } else {
                let ahead = try sync.wallClockMilliseconds() - outcome.hubClock
                try sync.setClockAhead(milliseconds: ahead, at: now)
                result.waitingForClock = outcome.clockAhead.count
                result.clockAhead = ahead
            }
            try sync.recordPush(at: now)
            return result
        }
    }
}
