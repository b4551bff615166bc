internal import PostgresCore
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

/// The PostgreSQL engine: one libpq connection acting for one account, its repositories, and
/// what only PostgreSQL knows (`LISTEN`/`NOTIFY` as the commit token, SQLSTATEs, row-level
/// security).
///
/// Made by ``open(target:options:)``, which migrates the schema of
/// `Migrations/postgres/` and listens on the account's channel.
final class PostgreSQLEngine: StorageEngine {
    let connection: PGConnection
    /// The connection string with its password replaced by `***`.
    let target: String
    /// The account every row read or written belongs to.
    let account: String
    let isEmpty = false
    let preferenceRepository: PostgreSQLPreferenceRepository
    let selectionRepository: PostgreSQLSelectionRepository
    let bookmarkRepository: PostgreSQLBookmarkRepository
    /// Whether this connection saw the account's sync stamping on (``SyncHub``).
    var isSyncStarted = false
    /// Notifications received so far: the commit token.
    private var notificationCount: Int64 = 0
    /// Set when a write transaction's answer has just been read: the notifications the
    /// server sent before it came with it, so the next look reads no socket.
    private var hasJustBeenAnswered = false
    /// When a write transaction's answer was last read (``coarseMonotonicNanoseconds()``).
    private var answeredAt: UInt64 = 0
    /// A connection that answered this recently is taken as alive: the next transaction is
    /// sent without reading the socket first, the look for a server that went away while
    /// the connection was idle (one `recvfrom` of a set's four system calls). A server gone
    /// in between fails that transaction, as one gone while it runs does.
    private static let answerStaysFreshNanoseconds: UInt64 = 10_000_000
    /// The session settings, set again after a reconnection.
    private let session: Session
    /// ``Session/writesAlone`` of the session now, and not opened read-only.
    private var writesAlone: Bool

    /// Behind a transaction pooler: the session of its own (straight to the server) that
    /// listens for the account's notifications; nil where the connection itself listens.
    let listener: PGConnection?

    /// Opened read-only (``PrefsKit/AppDatabase/Options/isReadOnly``): a standby may serve it.
    let isReadOnly: Bool

    init(
        connection: PGConnection, session: Session, listener: PGConnection? = nil,
        isReadOnly: Bool = false
    ) {
        self.connection = connection
        self.isReadOnly = isReadOnly
        self.listener = listener
        self.target = connection.redactedTarget
        self.account = session.account
        self.channel = session.channel
        self.session = session
        writesAlone = session.writesAlone && !isReadOnly
        preferenceRepository = PostgreSQLPreferenceRepository(
            connection: connection, account: account)
        selectionRepository = PostgreSQLSelectionRepository(
            connection: connection, account: account)
        bookmarkRepository = PostgreSQLBookmarkRepository(
            connection: connection, account: account)
    }

    var preferences: any PreferenceRepository { preferenceRepository }
    var selections: any SelectionRepository { selectionRepository }
    var bookmarks: any BookmarkRepository { bookmarkRepository }

    var isInTransaction: Bool { connection.isInTransaction }

    /// The channel the schema's trigger notifies at each commit of the account's
    /// preferences: a random token of the account's, which other accounts cannot read.
    let channel: String

    /// How many times a transaction runs again after a serialization failure or a deadlock
    /// before the error goes up (as ``DatabaseError/busy(path:)``, exit 75).
    static let retryLimit = 5
    /// Transactions run again so far on this connection (for tests and the curious).
    private(set) var retryCount = 0

    /// Runs the closure in one transaction. A serialization failure or a deadlock, the
    /// server's way of saying that another transaction got in the way, rolls back and runs
    /// the whole closure again (up to ``retryLimit`` times, after 2, 4, 8... ms with some
    /// jitter), so a closure must not act outside the database. The history rows after
    /// `changeID` are read in the commit's round trip (libpq's pipeline mode). A set alone
    /// whose rows `skipsRows` says the feed needs not is sent in its told form: its answer
    /// says whether the rows are its own (``WrittenChanges/toldWrite(_:)``), and they are
    /// read only when they are not.
    func writeTransaction<T>(
        readingChangesAfter changeID: Int64, countingRows: Bool, skipsRows: () -> Bool,
        _ body: () throws -> T
    ) throws -> (value: T, changes: Result<WrittenChanges, any Error>) {
        // The closure returns the body's value alone: a tuple of it would be a type the
        // runtime looks up at every call, this function being generic.
        var changes: Result<WrittenChanges, any Error> = .success(.rows([]))
        let value = try retrying {
            let ran = try runTransaction(
                readingChangesAfter: changeID, mayTell: { countingRows && skipsRows() }, body)
            changes = ran.changes
            return ran.value
        }
        return (value, changes)
    }

    /// Runs the closure in one transaction with a plain commit, retried as
    /// ``writeTransaction(readingChangesAfter:countingRows:skipsRows:_:)`` is (the hub's work for sync).
    ///
    /// `snapshot`: one repeatable-read, read-only snapshot for the whole closure, said in
    /// the `BEGIN` itself (behind a pooler, the statement after it sets the account).
    func transaction<T>(snapshot: Bool = false, _ body: () throws -> T) throws -> T {
        try retrying { try onceInTransaction(snapshot: snapshot, body) }
    }

    /// One attempt of ``transaction(snapshot:_:)``.
    private func onceInTransaction<T>(snapshot: Bool, _ body: () throws -> T) throws -> T {
        try reconnectIfNeeded()
        if snapshot {
            try connection.execute(
                prepared: "begin_snapshot",
                "BEGIN ISOLATION LEVEL REPEATABLE READ, READ ONLY")
        } else if isReadOnly {
            try connection.execute(prepared: "begin", "BEGIN")
        } else {
            // Said, not inherited: a session's default_transaction_read_only (which an
            // earlier client of a pooled connection may have left) changes nothing.
            try connection.execute(prepared: "begin_read_write", "BEGIN READ WRITE")
        }
        do {
            let value = try body()
            try connection.execute(prepared: "commit", "COMMIT")
            return value
        } catch {
            if connection.isInTransaction { _ = try? connection.execute("ROLLBACK") }
            throw error
        }
    }

    /// Runs the attempt again after a serialization failure or a deadlock, up to
    /// ``retryLimit`` times, after 2, 4, 8... ms with some jitter.
    private func retrying<T>(_ run: () throws -> T) throws -> T {
        var attempt = 0
        while true {
            do {
                return try run()
            } catch  where Self.isRetryable(error) && attempt < Self.retryLimit {
                attempt += 1
                retryCount += 1
                let pause = (1 << attempt) * 1000
                usleep(UInt32(pause + Int.random(in: 0...pause)))
            }
        }
    }

    /// A serialization failure or a deadlock, as the server reported it or as a store
    /// inside the transaction translated it (this engine's `busy` means nothing else).
    private static func isRetryable(_ error: any Error) -> Bool {
        if let error = error as? PGError { return error.isRetryable }
        if case .busy? = (error as? DatabaseError)?.kind { return true }
        return false
    }

    /// - Parameter mayGoAlone: Whether a transaction of one statement with a form of its
    ///   own may be sent as that statement (``Session/writesAlone``).
    /// - Parameter mayTell: Asked once the closure returned, when its transaction is a set
    ///   alone: whether that set may be sent in its told form.
    private func runTransaction<T>(
        readingChangesAfter changeID: Int64, mayGoAlone: Bool = true,
        mayTell: () -> Bool = { false }, _ body: () throws -> T
    ) throws -> (value: T, changes: Result<WrittenChanges, any Error>) {
        try reconnectIfNeeded(
            readingSocket: coarseMonotonicNanoseconds() &- answeredAt
                >= Self.answerStaysFreshNanoseconds)
        // Sent with the first statement that needs an answer, or with the commit: a set
        // is BEGIN, its statement, COMMIT and the history read, in one round trip.
        if isReadOnly {
            connection.queue(prepared: "begin", "BEGIN")
        } else {
            connection.queue(prepared: "begin_read_write", "BEGIN READ WRITE")
        }
        let value: T
        let read: Result<PGResult, PGError>
        var isTold = false
        do {
            value = try body()
            if writesAlone, mayGoAlone,
                var sole = connection.takeStatementAlone(afterBegin: "begin_read_write")
            {
                // A set alone: one statement that commits on its own and reads the history
                // rows after `changeID` (the set's parameters, then that id), or tells what
                // they are. Behind a pooler the prelude goes first, in the same implicit
                // transaction. (Added in place: the parameters are the queue's no longer,
                // and room was kept.)
                sole.parameters.append(String(changeID))
                let tells = sole.alone.told != nil && mayTell()
                guard let result = try runAlone(sole.alone, sole.parameters, told: tells)
                else { throw RefusedAsReadOnly() }
                if let failure = sole.check(result, sole.parameters) { throw failure }
                isTold = tells
                read = .success(result)
            } else {
                let (name, sql, parameters) = preferenceRepository.changesStatement(
                    after: changeID)
                read = try connection.commit(
                    prepared: "commit", thenExecute: name, sql, parameters)
            }
        } catch is RefusedAsReadOnly {
            // Nothing of it was done: the transaction again, its BEGIN saying READ WRITE.
            return try runTransaction(
                readingChangesAfter: changeID, mayGoAlone: false, mayTell: mayTell, body)
        } catch {
            connection.discardQueuedStatements()
            if connection.isInTransaction { _ = try? connection.execute("ROLLBACK") }
            // A queued statement's check failed (a set refused by the declared type).
            let failure = connection.takeQueuedCheckFailure() ?? error
            if let refused = failure as? RefusedByDeclaration { throw mismatch(refused) }
            throw failure
        }
        hasJustBeenAnswered = true
        answeredAt = coarseMonotonicNanoseconds()
        let changes: Result<WrittenChanges, any Error>
        switch read {
        case .success(let result) where isTold:
            if let told = PostgreSQLPreferenceRepository.toldRow(result) {
                changes = .success(.toldWrite(told))
            } else {
                // Rows of another connection among them: read now, after the commit.
                changes = Result { .rows(try preferenceRepository.changes(after: changeID)) }
            }
        case .success(let result):
            changes = .success(.rows(PostgreSQLPreferenceRepository.changes(result)))
        case .failure(let error):
            changes = .failure(error)
        }
        return (value, changes)
    }

    /// Runs a transaction's statement alone; nil when a pooled server session that an
    /// earlier client left read-only by default refused it (its implicit transaction then
    /// did nothing).
    private func runAlone(_ alone: PGConnection.Alone, _ parameters: [String?], told: Bool)
        throws -> PGResult?
    {
        let (name, sql) = told ? alone.told ?? (alone.name, alone.sql) : (alone.name, alone.sql)
        let ran = Result { () throws(PGError) in
            try connection.execute(prepared: name, sql, parameters)
        }
        if case .failure(let error) = ran, error.sqlState == "25006",
            connection.transactionPrelude != nil
        {
            return nil
        }
        return try ran.get()
    }

    /// A statement alone refused by a read-only default (``runAlone(_:_:told:)``).
    private struct RefusedAsReadOnly: Error {}

    /// The error of a set its declared type refused, read once its transaction is rolled
    /// back. A declaration changed since then (or a read that failed) is a conflict: the
    /// transaction runs again (``retrying(_:)``).
    private func mismatch(_ refused: RefusedByDeclaration) -> any Error {
        guard
            let declared = try? preferenceRepository.declaredType(
                suite: refused.suite, key: refused.key),
            declared != refused.given
        else { return DatabaseError.busy(path: target) }
        return PreferenceError.typeMismatch(
            key: refused.key, declared: declared, given: refused.given)
    }

    /// The server's write-ahead log and dead rows are its own: `VACUUM` frees them.
    func checkpointAndTruncate() throws {}

    func snapshotRead<T>(_ body: () throws -> T) throws -> T {
        // Not retried: the closure may already have handed on what it read.
        isInTransaction ? try body() : try onceInTransaction(snapshot: true, body)
    }

    func nestedTransaction<T>(_ body: () throws -> T) throws -> T {
        try connection.execute("SAVEPOINT prefs_savepoint")
        let result: T
        do {
            result = try body()
        } catch {
            _ = try? connection.execute("ROLLBACK TO SAVEPOINT prefs_savepoint")
            _ = try? connection.execute("RELEASE SAVEPOINT prefs_savepoint")
            throw error
        }
        try connection.execute("RELEASE SAVEPOINT prefs_savepoint")
        return result
    }

    /// Right after this connection's write transaction, the notifications that came with
    /// its answer are counted without reading the socket again.
    func commitToken() throws -> Int64 {
        let answered = hasJustBeenAnswered
        try reconnectIfNeeded(readingSocket: !answered)
        return notificationCount
    }

    /// The token first: a commit between the two readings is then already among the rows,
    /// never missed.
    func changeFeedStart() throws -> (token: Int64, changeID: Int64) {
        (try commitToken(), try preferenceRepository.latestChangeID())
    }

    /// Notifications arrive on the connection's socket, which the lock holder reads: taken
    /// up when the token is read, every 20 ms while anyone observes.
    var changeSignal: ChangeSignal {
        .polling(milliseconds: 20, reason: "LISTEN/NOTIFY, taken up every 20 ms")
    }

    /// After the server went away: connects again, acts for the account and listens again.
    /// The token moves, so the change feed catches up from the history and nothing is missed.
    /// Reads what is waiting on the socket first (notifications kept), so that a server
    /// that went away while the connection was idle is noticed here and not by the next
    /// statement.
    ///
    /// Once a transaction has begun here (its `BEGIN` queued, sent with its first statement),
    /// the look at its start stands: a set looks before its statements and reads the
    /// commit token again in them, and a second read of the socket a moment after the first
    /// is a system call that finds nothing.
    ///
    /// `readingSocket` false: the connection that listens has just been answered, and only
    /// what came with the answer is looked at.
    func reconnectIfNeeded(readingSocket: Bool = true) throws {
        hasJustBeenAnswered = false
        if !connection.hasQueuedStatements { takeNotifications(readingSocket: readingSocket) }
        let listenerLost = listener.map { !$0.isConnected } ?? false
        guard !connection.isConnected || listenerLost else { return }
        if !connection.isConnected { try connection.reconnect() }
        if listenerLost { try listener?.reconnect() }
        writesAlone =
            try Self.prepareSession(
                connection, account: account, timeouts: session.timeouts,
                writer: session.writer, listener: listener
            ).writesAlone && !isReadOnly
        notificationCount += 1
    }

    /// Counts the notifications waiting on the listening connection (with `readingSocket`
    /// false, on the connection itself, only those libpq has already read: a second read
    /// of the socket a moment after an answer finds nothing, and what arrives later is
    /// taken at the next look).
    private func takeNotifications(readingSocket: Bool) {
        if let listener {
            if listener.isConnected,
                let count = try? listener.takeNotifications(ignoring: session.writer)
            {
                notificationCount += Int64(count)
            }
        } else if connection.isConnected, !connection.isInTransaction,
            let count = try? connection.takeNotifications(
                ignoring: session.writer, readingSocket: readingSocket)
        {
            notificationCount += Int64(count)
        }
    }

    /// What a session was prepared with: the account it acts for, its channel, and its
    /// timeouts.
    struct Session {
        let account: String
        let channel: String
        let timeouts: (lock: Int, statement: Int)
        /// The store's name in its transactions (`prefs.writer`), its notifications'
        /// payload.
        let writer: String
        /// Whether a transaction of one statement with a form of its own may be sent as
        /// that statement alone (``PostgresCore/PGConnection/takeStatementAlone(afterBegin:)``),
        /// on a primary: on a session of the store's own whose transactions are not
        /// read-only by default, and behind a pooler (after the prelude, in one implicit
        /// transaction; a server session left read-only by an earlier client refuses it,
        /// and the transaction is sent again with its `BEGIN READ WRITE`).
        let writesAlone: Bool
    }

    /// Sets the session's timeouts, acts for the account and listens on its channel.
    ///
    /// A service role (a member of `prefs_service`) must name the account it acts for; any
    /// other role acts for its own account only, and naming another is refused, as is a
    /// group role (`SET ROLE prefs_account`), which is no account.
    ///
    /// - Parameter account: The account asked for; nil for the role's own.
    /// - Throws: ``DatabaseError/permissionDenied(path:detail:)`` for the refusals above.
    static func prepareSession(
        _ connection: PGConnection, account: String?, timeouts: (lock: Int, statement: Int),
        writer: String, listener: PGConnection? = nil
    ) throws -> Session {
        // Behind a transaction pooler the prelude sets these in every transaction instead.
        if connection.transactionPrelude == nil {
            try connection.execute(
                """
                SELECT set_config('lock_timeout', $1, false),
                    set_config('statement_timeout', $2, false),
                    set_config('prefs.account', $3, false),
                    set_config('prefs.writer', $4, false)
                """,
                [String(timeouts.lock), String(timeouts.statement), account ?? "", writer])
        }
        // Asked again at each switch of account on a connection of a sync server's pool:
        // prepared there; a session of its own asks once.
        let whoSQL = """
            SELECT prefs_current_account(), current_user::text,
                pg_has_role(current_user, 'prefs_service', 'MEMBER'), pg_is_in_recovery(),
                (SELECT channel FROM prefs_account_state
                    WHERE account = prefs_current_account()),
                current_setting('default_transaction_read_only') = 'on'
            """
        let who =
            try connection.transactionPrelude == nil
            ? connection.execute(whoSQL) : connection.execute(prepared: "session_who", whoSQL)
        let role = who.text(row: 0, column: 1) ?? ""
        // A session whose transactions default to read-only (a role's or a database's
        // setting) writes only in the transactions it begins READ WRITE.
        let writesAlone =
            connection.transactionPrelude != nil || who.bool(row: 0, column: 5) == false
        let isService = who.bool(row: 0, column: 2) == true
        if isService, account == nil {
            throw DatabaseError.permissionDenied(
                path: connection.redactedTarget,
                detail:
                    "the role '\(role)' acts for other accounts; name the account it acts for"
                    + " (PostgreSQLOptions.account)")
        }
        if !isService, let account, account != role {
            throw DatabaseError.permissionDenied(
                path: connection.redactedTarget,
                detail: "the role '\(role)' may act only for its own account, not '\(account)'")
        }
        guard let acting = who.text(row: 0, column: 0) else {
            throw DatabaseError.permissionDenied(
                path: connection.redactedTarget,
                detail: "the role '\(role)' is a group role, not an account")
        }
        // A standby takes no write and no LISTEN: its store reads, and is told of no
        // commit (the primary's notifications do not reach it).
        if who.bool(row: 0, column: 3) == true {
            return Session(
                account: acting, channel: who.text(row: 0, column: 4) ?? "", timeouts: timeouts,
                writer: writer, writesAlone: false)
        }
        if let channel = who.text(row: 0, column: 4) {
            // The usual case: the account has its channel; no write transaction.
            try listen(on: channel, connection: connection, listener: listener)
            return Session(
                account: acting, channel: channel, timeouts: timeouts, writer: writer,
                writesAlone: writesAlone)
        }
        // Made on first need, also by a read-only session (behind a pooler, whose prelude
        // makes each transaction of a read-only store read-only, without that part here).
        let prelude = connection.transactionPrelude
        defer { connection.transactionPrelude = prelude }
        if let prelude, prelude.parameters.count == 6 {
            // The same prelude, the transaction not made read-only.
            connection.transactionPrelude = (
                prelude.sql, Array(prelude.parameters.prefix(5)) + ["off"]
            )
        }
        try connection.execute("BEGIN READ WRITE")
        let channel: String
        do {
            channel =
                try connection.execute("SELECT prefs_account_channel()")
                .text(row: 0, column: 0) ?? ""
            try connection.execute("COMMIT")
        } catch {
            _ = try? connection.execute("ROLLBACK")
            throw error
        }
        try listen(on: channel, connection: connection, listener: listener)
        return Session(
            account: acting, channel: channel, timeouts: timeouts, writer: writer,
            writesAlone: writesAlone)
    }

    /// Behind a transaction pooler, LISTEN would hold on to no session: it goes to the
    /// listener, a connection of its own, or nowhere.
    private static func listen(
        on channel: String, connection: PGConnection, listener: PGConnection?
    ) throws {
        if let listener {
            try listener.execute("LISTEN " + PGConnection.quotedIdentifier(channel))
        } else if connection.transactionPrelude == nil {
            try connection.execute("LISTEN " + PGConnection.quotedIdentifier(channel))
        }
    }
}
