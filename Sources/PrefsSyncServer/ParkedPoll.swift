import Dispatch
import Synchronization

/// A long poll while it waits: no thread holds it. Its account's notification, its deadline
/// or the server's stop wakes it ( ``wake()``), and it looks again on a worker thread: it
/// answers then, or goes back to waiting. Looks never overlap; a wake during a look makes
/// one more look after it, so none is missed.
final class ParkedPoll: Sendable {
    private enum Phase {
        case idle, looking, lookAgain, done
    }

    /// What the device is given, when it is.
    let answer = ParkedAnswer()
    private let phase = Mutex(Phase.looking)
    private let deadline: DispatchTime
    private let workers: RequestWorkers
    private let look: Look
    private let finished: @Sendable () -> Void

    /// Finds whether the wait is over, and hands `then` the answer, or nil to wait on;
    /// when the time is up it must answer. It may hand it on another thread, later.
    typealias Look =
        @Sendable (
            _ timeIsUp: Bool, _ then: @escaping @Sendable (HTTPResponse?) -> Void
        ) -> Void

    /// A poll about to make its first look (``lookFirst()``).
    /// - Parameters:
    ///   - look: Whether the wait is over.
    ///   - finished: Called once, before the answer is given.
    init(
        deadline: DispatchTime, workers: RequestWorkers, look: @escaping Look,
        finished: @escaping @Sendable () -> Void
    ) {
        self.deadline = deadline
        self.workers = workers
        self.look = look
        self.finished = finished
    }

    /// Starts waiting, with a first look (the caller's own read came before the account's
    /// channel was listened to): answers ``answer`` when the wait is over, by its deadline at
    /// most.
    func start() {
        DispatchQueue.global().asyncAfter(deadline: deadline) { [self] in wake() }
        lookNow()
    }

    /// Ends the poll now, with `response`.
    func finish(_ response: HTTPResponse) {
        let first = phase.withLock { phase -> Bool in
            defer { phase = .done }
            return phase != .done
        }
        guard first else { return }
        finished()
        answer.answer(response)
    }

    /// Something may have changed, or the time is up: look again.
    func wake() {
        let start = phase.withLock { phase -> Bool in
            switch phase {
            case .idle:
                phase = .looking
                return true
            case .looking:
                phase = .lookAgain
                return false
            case .lookAgain, .done:
                return false
            }
        }
        if start { workers.submit { [self] in lookNow() } }
    }

    private func lookNow() {
        // A timer may fire a moment early.
        let timeIsUp = DispatchTime.now() + .milliseconds(5) >= deadline
        look(timeIsUp) { [self] response in
            if let response {
                finish(response)
            } else {
                settle()
            }
        }
    }

    /// After a look that did not answer: waits, or looks once more if woken meanwhile.
    private func settle() {
        let again = phase.withLock { phase -> Bool in
            switch phase {
            case .lookAgain:
                phase = .looking
                return true
            case .looking:
                phase = .idle
                return false
            case .idle, .done:
                return false
            }
        }
        if again { workers.submit { [self] in lookNow() } }
    }
}

/// The account positions that parked polls read, one read at a time per account: the polls
/// an account's notification wakes share the read that starts after it, where each would
/// have made its own (a thousand devices of an account waiting: one query, not a thousand,
/// and never more than the account's share of the pool).
final class PositionReads: Sendable {
    typealias Reader = @Sendable () throws -> Int64

    private struct Waiting {
        let ticket: Int
        let then: @Sendable (Result<Int64, any Error>) -> Void
    }

    private struct Channel {
        /// Tickets given so far; a read covers every ticket given before it started.
        var tickets = 0
        var reading = false
        var waiting: [Waiting] = []
        /// The newest waiting poll's reader, for the next read (any of the account's tokens
        /// reads its position).
        var reader: Reader?
    }

    private let channels = Mutex<[String: Channel]>([:])
    private let workers: RequestWorkers

    init(workers: RequestWorkers) { self.workers = workers }

    /// Hands `then` the channel's position, as read by a read that started after this call.
    func read(
        _ channel: String, with reader: @escaping Reader,
        then: @escaping @Sendable (Result<Int64, any Error>) -> Void
    ) {
        let start = channels.withLock { channels -> Bool in
            // In place: a copy of the entry would copy its waiting list at every poll.
            channels[channel, default: Channel()].tickets += 1
            let ticket = channels[channel, default: Channel()].tickets
            channels[channel, default: Channel()].waiting.append(
                Waiting(ticket: ticket, then: then))
            // The newest poll's reader: its token was the latest found good.
            channels[channel]?.reader = reader
            guard channels[channel]?.reading == false else { return false }
            channels[channel]?.reading = true
            return true
        }
        if start { workers.submit { [self] in readNow(channel) } }
    }

    private func readNow(_ channel: String, since: ContinuousClock.Instant = .now) {
        let (covered, reader) = channels.withLock { channels -> (Int, Reader?) in
            let entry = channels[channel]
            return (entry?.tickets ?? 0, entry?.reader)
        }
        let result: Result<Int64, any Error> = Result { () throws(any Error) -> Int64 in
            guard let reader else { throw HTTPError(500, .internal, "no poll to read for") }
            return try reader()
        }
        // The account holds its share of the hub's connections this moment (its devices
        // came back at once): the read waits for a turn, for 2 s at most, rather than send
        // every poll it covers away.
        if case .failure(let error as HTTPError) = result, error.status == 503,
            error.code == .busy, ContinuousClock.now - since < .seconds(2)
        {
            let pause = DispatchTimeInterval.milliseconds(Int.random(in: 20...80))
            DispatchQueue.global().asyncAfter(deadline: .now() + pause) { [self] in
                workers.submit { [self] in readNow(channel, since: since) }
            }
            return
        }
        let (served, again) = channels.withLock { channels -> ([Waiting], Bool) in
            guard var entry = channels.removeValue(forKey: channel) else { return ([], false) }
            let served = entry.waiting.filter { $0.ticket <= covered }
            entry.waiting.removeAll { $0.ticket <= covered }
            guard !entry.waiting.isEmpty else { return (served, false) }
            channels[channel] = entry
            return (served, true)
        }
        for waiting in served { waiting.then(result) }
        if again { workers.submit { [self] in readNow(channel) } }
    }
}
