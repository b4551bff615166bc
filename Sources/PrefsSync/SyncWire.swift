import PrefsKit

#if canImport(FoundationEssentials) && !PREFS_FULL_FOUNDATION
    import FoundationEssentials
#else
    import Foundation
#endif

/// The bodies of the sync protocol over HTTPS (docs/sync-protocol.md), version 1: what a
/// device sends to `prefs-server` and what it answers, as JSON. Each carries the arguments
/// and results of one ``SyncHub`` call; the server calls the hub's own functions with them.
package enum SyncWire {
    /// The protocol's version, the first part of every path (`/v1/...`).
    package static let version = 1

    /// What `GET /v1/account` says a server speaks: 1, the calls of a round one by one; 2,
    /// those and `POST /v1/round`, a round in one request. A device sends a round to a
    /// server that says 2 or more, and the calls one by one to any other.
    package static let protocolVersion = 2

    /// A body as the protocol sends it: JSON with its keys in order, so that the same
    /// answer is the same bytes.
    package static func json<T: Encodable>(_ value: T) -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        return Array((try? encoder.encode(value)) ?? Data(#"{"error":"internal"}"#.utf8))
    }

    /// One change of one field.
    package struct Change: Codable, Sendable, Hashable {
        package var entity: SyncEntity
        package var ident: String
        package var field: String
        package var clock: String
        package var present: Bool
        /// The value's type name (``PreferenceType``); nil for no value.
        package var type: String?
        /// The value as text (``PreferenceValue/storedColumns``).
        package var value: String?
        /// The value's bytes, in base64.
        package var bytes: String?

        package init(_ change: SyncChange) {
            entity = change.entity
            ident = change.ident
            field = change.field
            clock = change.clock
            present = change.present
            if let stored = change.value {
                let columns = stored.storedColumns
                type = stored.type.rawValue
                value = columns.value
                bytes = columns.bytes.map { Data($0).base64EncodedString() }
            }
        }

        /// The change; nil when its value does not read as its type says.
        package var change: SyncChange? {
            var decoded: PreferenceValue?
            if type != nil || value != nil || bytes != nil {
                var raw: [UInt8]?
                if let bytes {
                    guard let data = Data(base64Encoded: bytes) else { return nil }
                    raw = Array(data)
                }
                guard let read = PreferenceValue(storedType: type, value: value, bytes: raw)
                else { return nil }
                decoded = read
            }
            return SyncChange(
                entity: entity, ident: ident, field: field, clock: clock, present: present,
                value: decoded)
        }
    }

    /// A change beside the clock of the change it lost to, or that replaced it.
    package struct Decided: Codable, Sendable {
        package var change: Change
        package var winner: String
    }

    /// A change the hub refused, and why.
    package struct Refused: Codable, Sendable {
        package var change: Change
        package var reason: String
    }

    /// `POST /v1/push`: ``SyncHub/push(_:device:cursor:)``.
    package struct PushRequest: Codable, Sendable {
        package var device: String
        package var cursor: Int64
        package var changes: [Change]
    }

    /// The answer to a push: ``SyncPushOutcome``.
    package struct PushResponse: Codable, Sendable {
        package var accepted: Int
        package var lost: [Decided]
        package var winners: [Change]
        package var overwritten: [Decided]
        package var refused: [Refused]
        package var clockAhead: [Change]
        package var hubClock: Int64
        package var clockBound: Int64
        package var sequence: Int64?
        /// Changes to stamp again above `pushedClock` (absent from older servers' answers).
        package var stale: [Change]?
        package var pushedClock: String?

        package init(_ outcome: SyncPushOutcome) {
            accepted = outcome.accepted
            lost = outcome.lost.map { Decided(change: Change($0.change), winner: $0.winner) }
            winners = outcome.winners.map(Change.init)
            overwritten = outcome.overwritten.map {
                Decided(change: Change($0.change), winner: $0.winner)
            }
            refused = outcome.refused.map { Refused(change: Change($0.change), reason: $0.reason) }
            clockAhead = outcome.clockAhead.map(Change.init)
            hubClock = outcome.hubClock
            clockBound = outcome.clockBound
            sequence = outcome.sequence
            stale = outcome.stale.isEmpty ? nil : outcome.stale.map(Change.init)
            pushedClock = outcome.pushedClock
        }

        /// The outcome; nil when a change in it does not read.
        package var outcome: SyncPushOutcome? {
            func changes(_ list: [Change]) -> [SyncChange]? {
                let read = list.compactMap(\.change)
                return read.count == list.count ? read : nil
            }
            func decided(_ list: [Decided]) -> [(change: SyncChange, winner: String)]? {
                let read = list.compactMap { item in item.change.change.map { ($0, item.winner) } }
                return read.count == list.count ? read : nil
            }
            let refusedRead = refused.compactMap { item in
                item.change.change.map { (change: $0, reason: item.reason) }
            }
            guard let lost = decided(lost), let overwritten = decided(overwritten),
                let winners = changes(winners), let ahead = changes(clockAhead),
                let stale = changes(stale ?? []), refusedRead.count == refused.count
            else { return nil }
            var outcome = SyncPushOutcome(
                accepted: accepted, lost: lost, overwritten: overwritten, refused: refusedRead,
                clockAhead: ahead, hubClock: hubClock)
            outcome.winners = winners
            outcome.clockBound = clockBound
            outcome.sequence = sequence
            outcome.stale = stale
            outcome.pushedClock = pushedClock
            return outcome
        }
    }

    /// `POST /v1/pull`: ``SyncHub/pullRound(after:device:leavingOut:deviceClock:)``.
    package struct PullRequest: Codable, Sendable {
        package var device: String
        package var after: Int64
        package var leavingOut: Int64?
        package var deviceClock: String?
        /// How many changes at most (the server has its own limit too).
        package var limit: Int?
        /// About how many bytes of values at most (the server has its own limit too).
        package var limitBytes: Int?

        /// The limit a server takes: the request's within its own.
        package func limit(within server: SyncPullLimit) -> SyncPullLimit {
            SyncPullLimit(
                changes: limit ?? server.changes, bytes: limitBytes ?? server.bytes
            ).within(server)
        }
    }

    /// One pulled change and its number.
    package struct PulledRow: Codable, Sendable {
        package var change: Change
        package var sequence: Int64
    }

    /// The answer to a pull: ``SyncPull`` and the hub's clock bound.
    package struct PullResponse: Codable, Sendable {
        package var rows: [PulledRow]
        package var through: Int64?
        package var restored: Bool
        package var hubMilliseconds: Int64?
        package var clockBound: Int64
        /// More changes wait after `through`: the device pulls again.
        package var more: Bool

        package init(_ pull: SyncPull, clockBound: Int64) {
            rows = pull.rows.map { PulledRow(change: Change($0.change), sequence: $0.sequence) }
            through = pull.through
            restored = pull.isRestored
            hubMilliseconds = pull.hubMilliseconds
            self.clockBound = clockBound
            more = pull.hasMore
        }

        /// The pull; nil when a change in it does not read.
        package var pull: SyncPull? {
            let read = rows.compactMap { row in row.change.change.map { ($0, row.sequence) } }
            guard read.count == rows.count else { return nil }
            var pull = SyncPull(rows: read, through: through, hubMilliseconds: hubMilliseconds)
            pull.isRestored = restored
            pull.hasMore = more
            return pull
        }
    }

    /// `POST /v1/round`: a device's round in one request. The server reports `cursor` (what
    /// the device applied), pushes `changes` (under the request's idempotency key), pulls
    /// the first page after `cursor` leaving the push out, and reads the devices' names.
    package struct RoundRequest: Codable, Sendable {
        package var device: String
        package var cursor: Int64
        package var changes: [Change]
        package var deviceClock: String?
        /// How many changes at most in the page (the server has its own limit too).
        package var limit: Int?
        /// About how many bytes of values at most (the server has its own limit too).
        package var limitBytes: Int?

        /// The limit a server takes: the request's within its own.
        package func limit(within server: SyncPullLimit) -> SyncPullLimit {
            PullRequest(
                device: device, after: cursor, limit: limit, limitBytes: limitBytes
            ).limit(within: server)
        }
    }

    /// The answer to a round: the push's answer (nil when it carried no change), the pull's
    /// first page, the names of the account's devices.
    package struct RoundResponse: Codable, Sendable {
        package var names: [String: String]
        package var pull: PullResponse
        package var push: PushResponse?
    }

    /// `POST /v1/report`: ``SyncHub/report(device:cursor:)``.
    package struct ReportRequest: Codable, Sendable {
        package var device: String
        package var cursor: Int64
    }

    /// `POST /v1/forget`: ``SyncHub/forget(device:)``.
    package struct ForgetRequest: Codable, Sendable {
        package var device: String
    }

    /// `POST /v1/name`: ``SyncHub/setName(_:device:)``.
    package struct NameRequest: Codable, Sendable {
        package var device: String
        package var name: String?
    }

    /// `GET /v1/account`: who the token acts for, and how far the account's changes reach.
    package struct AccountResponse: Codable, Sendable {
        package var account: String
        package var position: Int64
        package var clockBound: Int64
        package var protocolVersion: Int

        package init(account: String, position: Int64, clockBound: Int64) {
            self.account = account
            self.position = position
            self.clockBound = clockBound
            protocolVersion = SyncWire.protocolVersion
        }
    }

    /// `GET /v1/devices`: ``SyncHub/deviceNames()``.
    package struct DevicesResponse: Codable, Sendable {
        package var names: [String: String]

        package init(names: [String: String]) { self.names = names }
    }

    /// `GET /v1/changes?after=N&wait=MS`: the account's position once it passed `after`, or
    /// when the wait ran out.
    package struct ChangesResponse: Codable, Sendable {
        package var position: Int64

        package init(position: Int64) { self.position = position }
    }

    /// The answer to a call that returns nothing (report, forget, name).
    package struct Done: Codable, Sendable {
        package var done: Bool

        package init() { done = true }
    }

    /// Every error: a stable code and one line for a person.
    package struct ErrorBody: Codable, Sendable, Error {
        package var error: String
        package var message: String

        package init(error: String, message: String) {
            self.error = error
            self.message = message
        }
    }
}
