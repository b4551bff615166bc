import Dispatch
internal import PostgresCore
import PrefsKit
import PrefsSync
import Synchronization

/// The hub as a sync server reaches it: what a request may call, for the one account its
/// device token opens.
package protocol SyncServerHub: SyncHub {
    /// A push kept under an idempotency key: the same key, device and changes get the kept
    /// answer (`answer` makes it, once); the same key with others throws
    /// ``IdempotencyKeyReused``.
    func push(
        _ changes: [SyncChange], device: String, cursor: Int64, idempotencyKey key: String,
        answer: (SyncPushOutcome) throws -> String
    ) throws -> String
}

extension PostgreSQLEngine: SyncServerHub {}

/// Connections of a sync server to its hub, shared by every account: a request takes one
/// (an idle one, a new one while the pool has room, else the first to come back within the
/// wait), looks up its token on it, and acts for the token's account. Nothing is kept
/// between requests but the connections: any number of servers serve one hub.
package final class SyncHubPool: Sendable {
    /// Why a request got no hub.
    package enum Refusal: Error, Sendable {
        /// Every connection stayed in use for the whole wait.
        case busy
        /// The hub does not know the token, or it was revoked.
        case unknownToken
    }

    private let target: String
    private let options: PostgreSQLOptions
    private let waitMilliseconds: Int
    /// The most connections one account may hold at once: half the pool (at least one), so
    /// that one account's expensive requests leave room for every other account's.
    package let accountShare: Int
    /// Connections held, by account.
    private let held = Mutex<[String: Int]>([:])
    /// Connections not in use.
    private let idle = Mutex<[Slot]>([])
    /// One permit per connection the pool may hold.
    private let permits: DispatchSemaphore

    /// A pool of at most `size` connections to `target` (a service role's connection
    /// string); it connects at the first call.
    package init(
        target: String, size: Int, waitMilliseconds: Int, statementTimeoutMilliseconds: Int
    ) throws {
        guard AppDatabase.isConnectionString(target) else {
            throw SyncError.hubIsNotAServer(target: target)
        }
        self.target = target
        var options = PostgreSQLOptions()
        // Every transaction names its account: a connection serves any account, one
        // request at a time, directly or behind PgBouncer in transaction pooling.
        options.isBehindTransactionPooler = true
        options.watchesForChanges = false
        options.statementTimeoutMilliseconds = statementTimeoutMilliseconds
        self.options = options
        self.waitMilliseconds = waitMilliseconds
        accountShare = max(1, size / 2)
        permits = DispatchSemaphore(value: max(1, size))
    }

    /// Connects (and migrates the hub) on a connection of the pool, and asks it a trivial
    /// question: whether the hub answers.
    /// Whether the hub answers, and its role can act for accounts (a member of
    /// `prefs_service`, or a superuser): an account's own role reaches the hub but every
    /// call for a token would fail.
    package func ping() throws {
        try withSlot { slot in
            let role = try slot.opened.connection.execute(
                """
                SELECT current_user, pg_has_role(current_user, 'prefs_service', 'MEMBER')
                    OR (SELECT rolsuper FROM pg_roles WHERE rolname = current_user)
                """)
            guard role.text(row: 0, column: 1) == "t" else {
                throw DatabaseError.permissionDenied(
                    path: "hub",
                    detail: "the role '\(MessageText.shown(role.text(row: 0, column: 0) ?? ""))' is"
                        + " not a member of prefs_service: it cannot act for the accounts")
            }
        }
    }

    /// The account `token` opens; nil for a token the hub does not know or that was
    /// revoked. One query, on a connection of the pool, which acts for no account.
    package func account(forToken token: String) throws -> String? {
        try withSlot { slot in try DeviceTokens.account(forToken: token, on: slot.opened.connection)
        }
    }

    /// Runs the body with the hub acting for the account `token` opens; for
    /// `verifiedAccount` when the same request's token was looked up moments before.
    ///
    /// An account that holds its share of the pool (``accountShare``) already is refused
    /// ``Refusal/busy`` at once: it waits for none of the other accounts' connections.
    ///
    /// - Throws: ``Refusal``; the hub's errors as ``DatabaseError``; the body's own.
    package func withAccount<T>(
        token: String, verifiedAccount: String? = nil, _ body: (any SyncServerHub) throws -> T
    ) throws -> T {
        // Known before a connection is taken: checked before one is.
        if let verifiedAccount {
            try enter(verifiedAccount)
            defer { leave(verifiedAccount) }
            return try withSlot { slot in
                try body(try slot.engine(forToken: token, verifiedAccount: verifiedAccount))
            }
        }
        return try withSlot { slot in
            let engine = try slot.engine(forToken: token, verifiedAccount: nil)
            try enter(engine.account)
            defer { leave(engine.account) }
            return try body(engine)
        }
    }

    /// Counts a connection for the account, unless it holds its share: ``Refusal/busy``.
    private func enter(_ account: String) throws {
        let entered = held.withLock { held in
            guard held[account, default: 0] < accountShare else { return false }
            held[account, default: 0] += 1
            return true
        }
        if !entered { throw Refusal.busy }
    }

    private func leave(_ account: String) {
        held.withLock { held in
            held[account, default: 1] -= 1
            if held[account] == 0 { held[account] = nil }
        }
    }

    /// One connection of the pool, and the engine acting for the account it served last.
    private final class Slot: @unchecked Sendable {
        let opened: PostgreSQLEngine.Opened
        var engine: PostgreSQLEngine?

        init(_ opened: PostgreSQLEngine.Opened) { self.opened = opened }

        /// The engine acting for the account the token opens.
        func engine(forToken token: String, verifiedAccount: String?) throws -> PostgreSQLEngine {
            guard
                let account = try verifiedAccount
                    ?? DeviceTokens.account(forToken: token, on: opened.connection)
            else { throw Refusal.unknownToken }
            if let engine, engine.account == account { return engine }
            engine = nil
            let acting = try PostgreSQLEngine.acting(for: account, on: opened)
            engine = acting
            return acting
        }
    }

    private func withSlot<T>(_ body: (Slot) throws -> T) throws -> T {
        guard permits.wait(timeout: .now() + .milliseconds(waitMilliseconds)) == .success else {
            throw Refusal.busy
        }
        defer { permits.signal() }
        if let kept = idle.withLock({ $0.popLast() }) {
            do {
                return try run(body, on: kept, retrying: true)
            } catch let error as PGError where error.isConnectionLost {
                // A kept connection the server closed meanwhile (a restart, a pooler's KILL):
                // every call is safe to make again (a push sent again takes nothing twice),
                // once, on a new one.
            }
        }
        return try run(
            body, on: Slot(PostgreSQLEngine.connectMigrated(target: target, options: options)),
            retrying: false)
    }

    /// Runs the body on one connection; keeps it for the next call unless it broke.
    /// `retrying`: a lost connection is thrown as it is, for the caller to try a new one.
    private func run<T>(_ body: (Slot) throws -> T, on slot: Slot, retrying: Bool) throws -> T {
        do {
            let value = try body(slot)
            keep(slot)
            return value
        } catch {
            keep(slot)
            if retrying, let lost = error as? PGError, lost.isConnectionLost { throw lost }
            guard error is PGError else { throw error }
            if let engine = slot.engine { throw engine.translate(error) }
            throw PostgreSQLEngine.databaseError(
                for: error, target: PGConnection.redacted(target), account: nil)
        }
    }

    /// A connection that broke or was left in a transaction is not kept.
    private func keep(_ slot: Slot) {
        if slot.opened.connection.isConnected, !slot.opened.connection.isInTransaction {
            idle.withLock { $0.append(slot) }
        }
    }
}
