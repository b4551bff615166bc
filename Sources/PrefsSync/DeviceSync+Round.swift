import PrefsKit

extension DeviceSync {
    /// The first page of a round's pull, as a round in one request brought it.
    struct RoundPage {
        var pull: SyncPull
        var clockBound: Int64
        /// The device's wall clock just before the request and just after its answer.
        var sent: Int64
        var answered: Int64
    }

    /// A round in one request, when the hub is a sync server that takes one
    /// (docs/sync-protocol.md, "A round in one request"): the push's result, the pull's first
    /// page and the devices' names. Nil when the hub does not take one: the calls then go one
    /// by one.
    func roundInOneRequest() throws -> (
        pushed: PushResult, page: RoundPage, names: [String: String]
    )? {
        let (pending, device) = try database.withReader { state in
            let sync = try Self.repository(state)
            return (try sync.pendingChanges(limit: Int.max), try sync.deviceState())
        }
        guard let device else { return nil }
        let speaksRound = try withHub { ($0 as? HTTPSyncHub)?.speaksRound ?? false }
        guard speaksRound else { return nil }
        if !pending.isEmpty, let tap = Self.pushTap.withLock({ $0 }) { tap(deviceID, pending) }
        let sent = try database.withReader { try Self.repository($0).wallClockMilliseconds() }
        let limit = pullLimit.withLock { $0 }
        let (answer, bound) = try withHub { hub in
            guard let http = hub as? HTTPSyncHub else {
                throw DatabaseError.internalError("the sync hub changed during a round")
            }
            return (
                try http.round(
                    pending, device: deviceID, cursor: device.cursor, deviceClock: device.clock,
                    limit: limit),
                try http.clockBound()
            )
        }
        let answered = try database.withReader {
            try Self.repository($0).wallClockMilliseconds()
        }
        var pushed = PushResult()
        if !pending.isEmpty {
            guard let outcome = answer.push else {
                throw DatabaseError.internalError(
                    "the sync server answered a round without the result of its push")
            }
            pushed = try apply(outcome, of: pending)
        }
        let page = RoundPage(
            pull: answer.pull, clockBound: bound, sent: sent, answered: answered)
        return (pushed, page, answer.names)
    }
}
