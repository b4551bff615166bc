internal import CLibPQ

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// One connection to a PostgreSQL server through libpq.
///
/// Not safe to share between threads: the caller serializes use (PrefsKit's database lock
/// does). Statements take text parameters (`nil` is NULL) and return text results; a
/// statement run through ``execute(prepared:_:_:)`` is prepared once per connection.
///
/// Its mutable state is marked `@exclusivity(unchecked)`: every use is serialized by its
/// caller, and the runtime's checks of each access were a twentieth of a set's instructions.
package final class PGConnection {
    let handle: OpaquePointer
    /// The connection string with any password replaced by `***`, for messages.
    package let redactedTarget: String
    @exclusivity(unchecked) private var preparedNames: Set<String> = []
    /// Names found prepared lately, one slot a name's length modulo 8: a statement's name
    /// is a literal, and `==` of a literal with itself compares two words, where the set's
    /// lookup hashes the whole name (about 350 instructions a statement). An empty slot holds
    /// a NUL, which no name (a C string) can be.
    @exclusivity(unchecked) private var recentlyPrepared = [String](repeating: "\0", count: 8)
    /// Set when a statement failed without a SQLSTATE: libpq's own failure to talk to the
    /// server ("server closed the connection unexpectedly"), which it may report before its
    /// status says the connection is gone.
    @exclusivity(unchecked) private var isBroken = false

    /// Connects, with libpq's own ways of finding the password (`PGPASSWORD`, `.pgpass`,
    /// service files) and the server (`PGHOST`...).
    ///
    /// - Parameter target: A libpq connection string: a URI (`postgresql://...`) or
    ///   `key=value` pairs (`host=/run/postgresql dbname=prefs`).
    /// - Throws: ``PGError`` naming why the server could not be reached or refused.
    package init(_ target: String) throws(PGError) {
        try LibPQ.load()
        redactedTarget = Self.redacted(target)
        guard let handle = PQconnectdb(target) else {
            throw PGError(sqlState: nil, message: "out of memory", isConnectionLost: true)
        }
        guard PQstatus(handle) == CONNECTION_OK else {
            let message = Self.trimmed(String(cString: PQerrorMessage(handle)))
            PQfinish(handle)
            throw Self.connectionError(message)
        }
        self.handle = handle
        // Notices (NOTICE: relation already exists, skipping) are not for the user.
        PQsetNoticeProcessor(handle, { _, _ in }, nil)
    }

    deinit {
        stopTracing()
        PQfinish(handle)
    }

    /// A failure to connect. libpq gives no SQLSTATE for these; its message tells an
    /// authentication failure from an unreachable server.
    private static func connectionError(_ message: String) -> PGError {
        let lowered = message.lowercased()
        // A value libpq refused before it tried to connect (`sslmode=bogus`, `port=abc`):
        // the string is wrong, not the server; retrying changes nothing.
        if lowered.hasPrefix("invalid ") {
            return PGError(sqlState: nil, message: message)
        }
        let isAuthentication =
            lowered.contains("authentication failed")
            || lowered.contains("no pg_hba.conf entry")
            || (lowered.contains("role \"") && lowered.contains("does not exist"))
            || lowered.contains("password is required")
            // libpq's own words when the server asks for a password and none was given.
            || lowered.contains("no password supplied")
            || lowered.contains("permission denied for database")
        // libpq gives no SQLSTATE for a database that is not there; it is not a matter of
        // retrying.
        if lowered.contains("database \"") && lowered.contains("does not exist") {
            return PGError(sqlState: "3D000", message: message)
        }
        return PGError(
            sqlState: isAuthentication ? "28000" : nil, message: message,
            isConnectionLost: !isAuthentication)
    }

    private static func trimmed(_ message: String) -> String {
        var text = message
        while text.last == "\n" || text.last == " " { text.removeLast() }
        if let newline = text.firstIndex(of: "\n") { text = String(text[..<newline]) }
        return text
    }

    // MARK: - Statements

    /// Runs one statement with parameters (`$1`, `$2`...).
    ///
    /// - Throws: ``PGError`` with the server's SQLSTATE.
    @discardableResult
    package func execute(_ sql: String, _ parameters: [String?] = []) throws(PGError) -> PGResult {
        try Self.refuseNUL(parameters)
        if let alone = try afterPreludeAlone(nil, sql, parameters) { return alone }
        if !queued.isEmpty || needsPrelude(sql) {
            return try pipeline([(nil, sql, parameters)])[0].get()
        }
        let result = withParameters(parameters) { values in
            PQexecParams(handle, sql, Int32(parameters.count), nil, values, nil, nil, 0)
        }
        return try check(result)
    }

    /// Runs a statement prepared once per connection under a name.
    ///
    /// - Throws: ``PGError`` with the server's SQLSTATE.
    @discardableResult
    package func execute(prepared name: String, _ sql: String, _ parameters: [String?] = [])
        throws(PGError) -> PGResult
    {
        if usesUnnamedStatements { return try execute(sql, parameters) }
        try Self.refuseNUL(parameters)
        if let alone = try afterPreludeAlone(name, sql, parameters) { return alone }
        if !queued.isEmpty || needsPrelude(sql) {
            return try pipeline([(name, sql, parameters)])[0].get()
        }
        try prepare(name, sql, parameterCount: parameters.count)
        // The name through `withCString`: a short one is copied on the stack, where passing
        // the String itself allocates a C string at each call.
        let result = withParameters(parameters) { values in
            name.withCString {
                PQexecPrepared(handle, $0, Int32(parameters.count), values, nil, nil, 0)
            }
        }
        return try check(result)
    }

    // MARK: - Behind a transaction pooler

    /// Sends every statement unnamed (parsed each time) instead of preparing it once per
    /// connection: behind a pooler in transaction mode, statements prepared on one server
    /// connection are not on the next (PgBouncer 1.18 does not carry them over).
    @exclusivity(unchecked) package var usesUnnamedStatements = false

    /// Whether this connection is a server process's own, with no pooler between: the
    /// process the server names as the session's (`pg_backend_pid()`) is the one libpq was
    /// given when it connected. A pooler gives its clients a process number and cancel key
    /// of its own (PgBouncer: random), since a client's sessions move between server
    /// processes; so statements prepared once hold for the connection's life only when
    /// the two are the same.
    package func isStraightToServer() throws(PGError) -> Bool {
        let found = try execute("SELECT pg_backend_pid()").integer(row: 0, column: 0)
        return found == Int64(PQbackendPID(handle))
    }

    /// The name the prelude is prepared under when statements are prepared, and the text
    /// prepared under it (a prelude of another text is sent unnamed).
    private static let preludeName = "prefs_transaction_prelude"
    @exclusivity(unchecked) private var preparedPrelude: String?

    /// A statement run first in every transaction, in the same round trip: after each
    /// `BEGIN`, and before a statement sent outside a transaction (which then runs with
    /// it in one implicit transaction, libpq's pipeline). Behind a pooler in transaction
    /// mode, settings that must hold for a statement (the account acted for, timeouts)
    /// go here as `set_config(..., true)`: a session's settings would stay on a server
    /// connection that other clients use next.
    @exclusivity(unchecked) package var transactionPrelude: (sql: String, parameters: [String?])? {
        didSet { preludeValues = transactionPrelude.map { CParameters($0.parameters) } }
    }
    /// The prelude's parameters as libpq takes them, made once when it is set: behind a
    /// pooler it goes with nearly every statement.
    @exclusivity(unchecked) private var preludeValues: CParameters?

    private static func startsTransaction(_ sql: String) -> Bool {
        boundary(of: sql) == .begins
    }

    private static func endsTransaction(_ sql: String) -> Bool {
        boundary(of: sql) == .ends
    }

    /// What a statement's first words do to a transaction.
    private enum Boundary { case begins, ends, neither }

    /// Reads the statement's first words in any case, after spaces and line breaks, over its
    /// bytes where they are (a statement's text is a native string), once: most statements
    /// are told from their first letter. (A lazy view cost some 250 instructions a keyword,
    /// and a copy of the string made for each keyword about 200.)
    private static func boundary(of sql: String) -> Boundary {
        sql.utf8.withContiguousStorageIfAvailable(boundary(of:))
            ?? ContiguousArray(sql.utf8).withUnsafeBufferPointer { boundary(of: $0) }
    }

    private static func boundary(of text: UnsafeBufferPointer<UInt8>) -> Boundary {
        var start = 0
        while start < text.count, text[start] == 0x20 || text[start] == 0x0A { start += 1 }
        func starts(with keyword: StaticString) -> Bool {
            keyword.withUTF8Buffer { expected in
                guard text.count - start >= expected.count else { return false }
                for (offset, byte) in expected.enumerated() {
                    let next = text[start + offset]
                    // ASCII letters compare without their case bit; other bytes as they are.
                    let folded = (0x61...0x7A).contains(next) ? next - 0x20 : next
                    guard folded == byte else { return false }
                }
                return true
            }
        }
        guard start < text.count else { return .neither }
        switch text[start] | 0x20 {
        case 0x62:  // b
            return starts(with: "BEGIN") ? .begins : .neither
        case 0x73:  // s
            return starts(with: "START TRANSACTION") ? .begins : .neither
        case 0x63:  // c
            return starts(with: "COMMIT") ? .ends : .neither
        case 0x72:  // r
            return starts(with: "ROLLBACK") && !starts(with: "ROLLBACK TO") ? .ends : .neither
        case 0x65:  // e
            return starts(with: "END") ? .ends : .neither
        case 0x61:  // a
            return starts(with: "ABORT") ? .ends : .neither
        default:
            return .neither
        }
    }

    /// Whether a statement sent now needs the prelude with it.
    private func needsPrelude(_ sql: String) -> Bool {
        guard transactionPrelude != nil else { return false }
        return Self.startsTransaction(sql) || PQtransactionStatus(handle) == PQTRANS_IDLE
    }

    // MARK: - Pipelines

    /// A statement sent later, in one pipeline with the next statement run or with the
    /// commit (``queue(prepared:_:_:check:)``).
    private struct Queued {
        let name: String
        let sql: String
        let parameters: [String?]
        let check: Check
        /// Reads its failure: the error it stands for, when the statement refused its work
        /// by failing (which aborts its transaction), else nil.
        let refusal: Refusal?
        let alone: Alone?
    }

    /// Reads a queued statement's result, given its parameters: an error means it changed
    /// nothing. (Given the parameters, a check captures nothing, and queuing a statement
    /// allocates no context for it.)
    package typealias Check = (PGResult, [String?]) -> (any Error)?
    /// Reads a queued statement's failure, given its parameters (``queue(prepared:_:_:check:refusal:alone:)``).
    package typealias Refusal = (PGError, [String?]) -> (any Error)?

    /// What a queued statement becomes when it is its transaction's only statement: one
    /// statement that does its work, commits on its own (no `BEGIN`, no `COMMIT`) and
    /// returns what the commit's follow-up would read (``takeStatementAlone(afterBegin:)``).
    /// Its result is read by the queued statement's check. One instance a kind of statement
    /// (queued with a reference, not a copy of its texts).
    package final class Alone: Sendable {
        /// The name it is prepared under, and its text, which takes the queued statement's
        /// parameters followed by those its caller adds.
        package let name: String
        package let sql: String
        /// A second form, with the same parameters and read by the same check, whose
        /// result says less: what its caller asks for when it needs no more.
        package let told: (name: String, sql: String)?

        package init(name: String, sql: String, told: (name: String, sql: String)? = nil) {
            self.name = name
            self.sql = sql
            self.told = told
        }
    }
    @exclusivity(unchecked) private var queued: [Queued] = []
    @exclusivity(unchecked) private var checkFailure: (any Error)?

    /// Whether statements wait to be sent (a `BEGIN` among them, until the first statement
    /// that needs its answer, or the commit).
    package var hasQueuedStatements: Bool { !queued.isEmpty }

    /// Queues a statement: it is sent, in order, in the pipeline of the next statement
    /// this connection runs or of ``commit(prepared:thenExecute:_:_:)``, so that it costs
    /// no round trip of its own. A failure of the server fails that next call. `check`
    /// reads its result then; an error it returns fails that next call too (with a
    /// ``PGError`` whose ``takeQueuedCheckFailure()`` is the error), and must mean the
    /// statement changed nothing, since the commit may already be done.
    ///
    /// `refusal` reads its failure the same way: a statement that refuses by failing
    /// aborts its transaction, so that nothing of it is committed, not even the statements
    /// before it.
    ///
    /// `alone`: the form it takes when it is the only statement after the transaction's
    /// `BEGIN` (``takeStatementAlone(afterBegin:)``).
    package func queue(
        prepared name: String, _ sql: String, _ parameters: [String?] = [],
        check: @escaping Check = { _, _ in nil }, refusal: Refusal? = nil, alone: Alone? = nil
    ) {
        queued.append(
            Queued(
                name: name, sql: sql, parameters: parameters, check: check, refusal: refusal,
                alone: alone))
    }

    /// When the queue holds the `BEGIN` queued under `beginName` and one statement that
    /// has a form of its own (``Alone``), on a connection with no transaction open: empties
    /// the queue and returns that form with the statement's parameters, for the caller to
    /// run in place of the transaction (behind a pooler, its prelude is sent first in the
    /// same implicit transaction). Otherwise nil, and the queue is left as it is.
    package func takeStatementAlone(afterBegin beginName: String)
        -> (alone: Alone, parameters: [String?], check: Check)?
    {
        guard queued.count == 2, queued[0].name == beginName,
            let alone = queued[1].alone, PQtransactionStatus(handle) == PQTRANS_IDLE
        else { return nil }
        let statement = queued[1]
        queued.removeAll(keepingCapacity: true)
        return (alone, statement.parameters, statement.check)
    }

    /// Drops what is queued, unsent (the transaction failed before it needed a round trip).
    package func discardQueuedStatements() {
        queued.removeAll()
    }

    /// The error a queued statement's check returned, once; nil when none did.
    package func takeQueuedCheckFailure() -> (any Error)? {
        defer { checkFailure = nil }
        return checkFailure
    }

    /// Sends the queued statements and `statements` in one pipeline (one round trip),
    /// and returns the results of `statements`. A statement after one that failed is not
    /// run (`.failure`, "not run"); the failure of a queued statement is thrown.
    private func pipeline(_ statements: [(name: String?, sql: String, parameters: [String?])])
        throws(PGError) -> [Result<PGResult, PGError>]
    {
        for item in queued { try Self.refuseNUL(item.parameters) }
        let waiting = queued
        queued = []
        for item in waiting {
            try prepare(item.name, item.sql, parameterCount: item.parameters.count)
        }
        for statement in statements {
            if let name = statement.name {
                try prepare(name, statement.sql, parameterCount: statement.parameters.count)
            }
        }
        let preludeName = try preparePrelude()
        try enterPipeline()
        defer { PQexitPipelineMode(handle) }
        // The prelude after each BEGIN, and first in each implicit transaction; which of
        // the statements sent are the caller's.
        var isCallers: [Bool] = []
        isCallers.reserveCapacity(waiting.count + statements.count + 2)
        var inTransaction = PQtransactionStatus(handle) != PQTRANS_IDLE
        var sent = true
        func sendOne(_ name: String?, _ sql: String, _ parameters: [String?]) {
            guard sent else { return }
            isCallers.append(true)
            sent = sendStatement(name, sql, parameters)
        }
        func sendPrelude() {
            guard sent else { return }
            isCallers.append(false)
            sent = sendPreludeStatement(named: preludeName)
        }
        func send(_ name: String?, _ sql: String, _ parameters: [String?]) {
            guard transactionPrelude != nil else {
                sendOne(name, sql, parameters)
                return
            }
            let starts = Self.startsTransaction(sql)
            if !inTransaction && !starts {
                sendPrelude()
                inTransaction = true
            }
            sendOne(name, sql, parameters)
            if starts {
                sendPrelude()
                inTransaction = true
            } else if Self.endsTransaction(sql) {
                inTransaction = false
            }
        }
        for item in waiting { send(item.name, item.sql, item.parameters) }
        for statement in statements { send(statement.name, statement.sql, statement.parameters) }
        try sync(afterSending: sent)
        var results: [Result<PGResult, PGError>] = []
        results.reserveCapacity(isCallers.count)
        var preludeFailure: PGError?
        for isCaller in isCallers {
            if isCaller {
                results.append(nextCallersResult())
            } else if let failure = nextPreludeFailure(), preludeFailure == nil {
                preludeFailure = failure
            }
        }
        closePipeline()
        if let preludeFailure { throw preludeFailure }
        for (item, result) in zip(waiting, results) {
            if case .failure(let error) = result,
                let refused = item.refusal?(error, item.parameters)
            {
                checkFailure = refused
            }
            let result = try result.get()
            if let failure = item.check(result, item.parameters) {
                checkFailure = failure
                throw PGError(sqlState: nil, message: "\(failure)")
            }
        }
        return Array(results.dropFirst(waiting.count))
    }

    /// Commits the open transaction and runs a statement after it, in one round trip
    /// (libpq's pipeline mode) with the statements queued before: the follow-up does not
    /// wait for the commit's answer, and does not run when the commit failed.
    ///
    /// - Parameters:
    ///   - commitName: The name `COMMIT` is prepared under.
    ///   - name, sql, parameters: The statement to run once committed, prepared once per
    ///     connection under `name` as by ``execute(prepared:_:_:)``.
    /// - Returns: The follow-up's result, or its own failure (which leaves the commit done).
    /// - Throws: ``PGError`` when the commit or a queued statement failed (the transaction
    ///   is then rolled back, or left failed for the caller to roll back).
    package func commit(
        prepared commitName: String, thenExecute name: String, _ sql: String,
        _ parameters: [String?]
    ) throws(PGError) -> Result<PGResult, PGError> {
        let results = try pipeline([(commitName, "COMMIT", []), (name, sql, parameters)])
        _ = try results[0].get()
        return results[1]
    }

    /// One statement outside a transaction behind a pooler, with nothing queued (a read or a
    /// write alone): the prelude and the statement in one pipeline, as ``pipeline(_:)``
    /// sends them, without its lists. Nil when the statement is not such a one.
    private func afterPreludeAlone(_ name: String?, _ sql: String, _ parameters: [String?])
        throws(PGError) -> PGResult?
    {
        guard transactionPrelude != nil, queued.isEmpty,
            PQtransactionStatus(handle) == PQTRANS_IDLE, Self.boundary(of: sql) == .neither
        else { return nil }
        if let name { try prepare(name, sql, parameterCount: parameters.count) }
        let preludeName = try preparePrelude()
        try enterPipeline()
        defer { PQexitPipelineMode(handle) }
        let sent =
            sendPreludeStatement(named: preludeName) && sendStatement(name, sql, parameters)
        try sync(afterSending: sent)
        let preludeFailure = nextPreludeFailure()
        let result = nextCallersResult()
        closePipeline()
        if let preludeFailure { throw preludeFailure }
        return try result.get()
    }

    /// The prelude's name once prepared, when statements are prepared and the prelude's
    /// text is the one prepared (another is sent unnamed).
    private func preparePrelude() throws(PGError) -> String? {
        guard let prelude = transactionPrelude, !usesUnnamedStatements,
            preparedPrelude == nil || preparedPrelude == prelude.sql
        else { return nil }
        try prepare(Self.preludeName, prelude.sql, parameterCount: prelude.parameters.count)
        preparedPrelude = prelude.sql
        return Self.preludeName
    }

    private func enterPipeline() throws(PGError) {
        guard PQenterPipelineMode(handle) == 1 else { throw brokenConnection() }
    }

    /// Sends one statement of a pipeline, named when statements are prepared; false when
    /// libpq could not.
    private func sendStatement(_ name: String?, _ sql: String, _ parameters: [String?]) -> Bool {
        withParameters(parameters) { values in
            sendStatement(name, sql, values, count: Int32(parameters.count))
        }
    }

    /// Sends the prelude (``transactionPrelude``), under `name` when it is prepared.
    private func sendPreludeStatement(named name: String?) -> Bool {
        guard let prelude = transactionPrelude, let values = preludeValues else { return false }
        return sendStatement(name, prelude.sql, values.pointers, count: values.count)
    }

    private func sendStatement(
        _ name: String?, _ sql: String, _ values: [UnsafePointer<CChar>?], count: Int32
    ) -> Bool {
        // The name and text as C strings through `withCString`: a short one is copied on
        // the stack, where passing the String itself would allocate a copy.
        if let name = usesUnnamedStatements ? nil : name {
            return name.withCString {
                PQsendQueryPrepared(handle, $0, count, values, nil, nil, 0) == 1
            }
        }
        return sql.withCString {
            PQsendQueryParams(handle, $0, count, nil, values, nil, nil, 0) == 1
        }
    }

    /// Ends what a pipeline sends with its synchronization point.
    private func sync(afterSending sent: Bool) throws(PGError) {
        guard sent, PQpipelineSync(handle) == 1 else { throw brokenConnection() }
    }

    /// The connection is broken: libpq's message.
    private func brokenConnection() -> PGError {
        isBroken = true
        return PGError(
            sqlState: nil, message: Self.trimmed(String(cString: PQerrorMessage(handle))),
            isConnectionLost: true)
    }

    /// The prelude's own answer, next in the pipeline: only its failure matters.
    private func nextPreludeFailure() -> PGError? {
        let next = nextPipelineResult()
        if let next, PQresultStatus(next) == PGRES_PIPELINE_ABORTED {
            PQclear(next)
            return nil
        }
        if case .failure(let error) = Result(catching: { () throws(PGError) in try check(next) }) {
            return error
        }
        return nil
    }

    /// A caller's statement's answer, next in the pipeline: not run when one before it
    /// failed.
    private func nextCallersResult() -> Result<PGResult, PGError> {
        let next = nextPipelineResult()
        if let next, PQresultStatus(next) == PGRES_PIPELINE_ABORTED {
            PQclear(next)
            return .failure(PGError(sqlState: nil, message: "not run: an earlier statement failed"))
        }
        return Result { () throws(PGError) in try check(next) }
    }

    /// Reads to the synchronization point, which closes the pipeline; the connection is
    /// idle after it.
    private func closePipeline() {
        while let result = PQgetResult(handle) {
            let status = PQresultStatus(result)
            PQclear(result)
            if status == PGRES_PIPELINE_SYNC { break }
        }
    }

    /// The result of the pipeline's next statement, and past the empty result that ends
    /// it; `nil` when the connection failed.
    private func nextPipelineResult() -> OpaquePointer? {
        let result = PQgetResult(handle)
        if result != nil {
            while let extra = PQgetResult(handle) { PQclear(extra) }
        }
        return result
    }

    private func prepare(_ name: String, _ sql: String, parameterCount: Int)
        throws(PGError)
    {
        guard !usesUnnamedStatements else { return }
        let slot = name.utf8.count & 7
        if recentlyPrepared[slot] == name { return }
        if !preparedNames.contains(name) {
            try check(PQprepare(handle, name, sql, Int32(parameterCount), nil))
            preparedNames.insert(name)
        }
        recentlyPrepared[slot] = name
    }

    /// Runs several statements separated by semicolons, without parameters (a migration).
    ///
    /// - Throws: ``PGError`` from the first statement that fails; the rest do not run.
    package func executeScript(_ sql: String) throws(PGError) {
        // Several statements cannot go in a pipeline: what is queued goes first. Behind a
        // pooler a script runs inside a transaction begun by the caller (a migration).
        if !queued.isEmpty { _ = try pipeline([]) }
        // PQexec returns the last result; an earlier failure stops the script there.
        try check(PQexec(handle, sql))
    }

    /// Refuses parameters of which one holds a NUL character (U+0000), before anything is
    /// sent: PostgreSQL's text cannot hold one, and libpq's C strings would end the text
    /// there, storing less than was given without a word.
    private static func refuseNUL(_ parameters: [String?]) throws(PGError) {
        for case let parameter? in parameters where holdsNUL(parameter) { throw nulRefused }
    }

    /// Whether the text holds a NUL character (U+0000), which PostgreSQL's text cannot.
    @inline(__always)
    package static func holdsNUL(_ text: String) -> Bool {
        // In place for a native string (no copy, unlike `withUTF8` on a variable).
        let found = text.utf8.withContiguousStorageIfAvailable { bytes in
            guard let base = bytes.baseAddress else { return false }
            return memchr(base, 0, bytes.count) != nil
        }
        return found ?? text.utf8.contains(0)
    }

    /// What ``refuseNUL(_:)`` throws: PostgreSQL's own SQLSTATE for such text.
    package static let nulRefused = PGError(
        sqlState: "22021",
        message: "it holds a NUL character (U+0000), which PostgreSQL's text cannot hold")

    /// The parameters as C strings, all in one buffer (each with its NUL), for the length
    /// of `body`.
    private func withParameters<R>(
        _ parameters: [String?], _ body: ([UnsafePointer<CChar>?]) -> R
    ) -> R {
        withUnsafeTemporaryAllocation(
            of: CChar.self, capacity: CParameters.size(of: parameters)
        ) { buffer in
            guard let base = buffer.baseAddress else {
                return body(Array(repeating: nil, count: parameters.count))
            }
            return body(CParameters.copy(parameters, to: base))
        }
    }

    @discardableResult
    private func check(_ result: OpaquePointer?) throws(PGError) -> PGResult {
        guard let result else {
            throw brokenConnection()
        }
        let wrapped = PGResult(handle: result)
        switch PQresultStatus(result) {
        case PGRES_COMMAND_OK, PGRES_TUPLES_OK, PGRES_EMPTY_QUERY: return wrapped
        default:
            let state = PQresultErrorField(result, Int32(UInt8(ascii: "C"))).map {
                String(cString: $0)
            }
            let primary = PQresultErrorField(result, Int32(UInt8(ascii: "M"))).map {
                String(cString: $0)
            }
            // No SQLSTATE: libpq could not talk to the server ("server closed the
            // connection unexpectedly"), even if its status does not say so yet. Class 57P
            // (the backend was ended: pg_terminate_backend, a shutdown) and class 08 (a
            // connection exception) end the session too.
            let isEnded =
                state == nil || state?.hasPrefix("57P") == true || state?.hasPrefix("08") == true
            if isEnded { isBroken = true }
            throw PGError(
                sqlState: state,
                message: primary ?? Self.trimmed(String(cString: PQerrorMessage(handle))),
                isConnectionLost: isEnded || PQstatus(handle) != CONNECTION_OK)
        }
    }

    // MARK: - Transactions and state

    /// Whether a transaction is open (or failed and not yet rolled back).
    package var isInTransaction: Bool {
        let status = PQtransactionStatus(handle)
        return status == PQTRANS_INTRANS || status == PQTRANS_INERROR
            || status == PQTRANS_ACTIVE
    }

    /// Whether the connection is up, as far as libpq knows without asking the server.
    package var isConnected: Bool { !isBroken && PQstatus(handle) == CONNECTION_OK }

    /// Connects again with the same settings, after the server went away; prepared
    /// statements are prepared again on next use.
    ///
    /// - Throws: ``PGError`` when the server still cannot be reached.
    package func reconnect() throws(PGError) {
        queued.removeAll()
        checkFailure = nil
        PQreset(handle)
        preparedNames.removeAll()
        for slot in recentlyPrepared.indices { recentlyPrepared[slot] = "\0" }
        preparedPrelude = nil
        isBroken = false
        guard PQstatus(handle) == CONNECTION_OK else {
            throw Self.connectionError(Self.trimmed(String(cString: PQerrorMessage(handle))))
        }
    }

    private var traceFile: UnsafeMutablePointer<FILE>?

    /// Writes every protocol message this connection sends and receives to a file, one
    /// per line, without timestamps (libpq's `PQtrace`): for tests that count round trips
    /// (a client's `Sync` each). Returns false when the file cannot be opened.
    package func startTracing(toFile path: String) -> Bool {
        stopTracing()
        guard let file = fopen(path, "w") else { return false }
        traceFile = file
        PQtrace(handle, file)
        PQsetTraceFlags(handle, 1)  // PQTRACE_SUPPRESS_TIMESTAMPS
        return true
    }

    /// Stops ``startTracing(toFile:)`` and closes its file.
    package func stopTracing() {
        guard let file = traceFile else { return }
        PQuntrace(handle)
        fclose(file)
        traceFile = nil
    }

    /// The role the session runs as.
    package var user: String { String(cString: PQuser(handle)) }

    // MARK: - Notifications

    /// Reads what the server sent without waiting, and counts the notifications among it
    /// (`LISTEN` first) sent by others: this session's own, which the server sends back to
    /// it too, and those whose payload is `ownPayload` (the sender's name for itself,
    /// when its commits ran on other sessions) are taken and not counted.
    ///
    /// `readingSocket` false: only what libpq has already read is looked at (right after a
    /// statement's answer, which brings the notifications the server sent before it), with
    /// no system call.
    ///
    /// - Throws: ``PGError`` when the connection is gone.
    package func takeNotifications(ignoring ownPayload: String? = nil, readingSocket: Bool = true)
        throws(PGError) -> Int
    {
        guard !readingSocket || PQconsumeInput(handle) == 1 else {
            throw brokenConnection()
        }
        let ownProcess = PQbackendPID(handle)
        var count = 0
        while let notification = PQnotifies(handle) {
            let isOwn =
                notification.pointee.be_pid == ownProcess
                || (ownPayload.map { own in
                    notification.pointee.extra.map { String(cString: $0) == own } ?? false
                } ?? false)
            if !isOwn { count += 1 }
            PQfreemem(notification)
        }
        return count
    }

    /// Reads what the server sent without waiting, and returns the channels notified (a
    /// channel once per notification), this session's own notifications included.
    ///
    /// - Throws: ``PGError`` when the connection is gone.
    package func takeNotifiedChannels() throws(PGError) -> [String] {
        guard PQconsumeInput(handle) == 1 else {
            throw brokenConnection()
        }
        var channels: [String] = []
        while let notification = PQnotifies(handle) {
            if let name = notification.pointee.relname { channels.append(String(cString: name)) }
            PQfreemem(notification)
        }
        return channels
    }

    /// The socket, to wait on for notifications; -1 when not connected.
    package var socket: Int32 { PQsocket(handle) }

    // MARK: - Quoting and redaction

    /// An identifier quoted for SQL (`"prefs:alice"`), doubling any quote inside.
    package static func quotedIdentifier(_ name: String) -> String {
        "\"" + name.replacingAll("\"", with: "\"\"") + "\""
    }

    /// A connection string with every secret libpq would read replaced by `***`
    /// (``ConnectionString/redacted(_:)``).
    package static func redacted(_ target: String) -> String {
        ConnectionString.redacted(target)
    }
}

extension String {
    fileprivate func replacingAll(_ target: String, with replacement: String) -> String {
        var result = ""
        var rest = Substring(self)
        while let found = rest.firstRange(of: target) {
            result += rest[..<found.lowerBound]
            result += replacement
            rest = rest[found.upperBound...]
        }
        return result + rest
    }

    fileprivate func replacingAll(_ target: Character, with replacement: String) -> String {
        var result = ""
        for character in self {
            if character == target { result += replacement } else { result.append(character) }
        }
        return result
    }
}

/// Parameters as libpq takes them (C strings, nil for NULL), in one allocation kept for as
/// long as they are sent again.
private final class CParameters {
    let count: Int32
    let pointers: [UnsafePointer<CChar>?]
    private let storage: UnsafeMutablePointer<CChar>

    init(_ parameters: [String?]) {
        storage = .allocate(capacity: Self.size(of: parameters))
        pointers = Self.copy(parameters, to: storage)
        count = Int32(parameters.count)
    }

    /// The bytes the parameters take as C strings, each with its NUL (at least 1).
    static func size(of parameters: [String?]) -> Int {
        var size = 0
        for parameter in parameters { size += (parameter?.utf8.count ?? 0) + 1 }
        return max(size, 1)
    }

    /// Copies the parameters one after another into `base` (``size(of:)`` bytes), each
    /// ended by a NUL; returns where each starts, nil for NULL.
    static func copy(_ parameters: [String?], to base: UnsafeMutablePointer<CChar>)
        -> [UnsafePointer<CChar>?]
    {
        var pointers: [UnsafePointer<CChar>?] = []
        pointers.reserveCapacity(parameters.count)
        var offset = 0
        for parameter in parameters {
            guard var parameter else {
                pointers.append(nil)
                continue
            }
            let start = base + offset
            // The bytes in one copy (`withUTF8` makes a bridged string native first).
            offset += parameter.withUTF8 { bytes in
                guard let source = bytes.baseAddress else { return 0 }
                UnsafeMutableRawPointer(start).copyMemory(from: source, byteCount: bytes.count)
                return bytes.count
            }
            base[offset] = 0
            offset += 1
            pointers.append(UnsafePointer(start))
        }
        return pointers
    }

    deinit { storage.deallocate() }
}
