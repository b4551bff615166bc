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
    private let look: @Sendable (_ timeIsUp: Bool) -> HTTPResponse?
    private let finished: @Sendable () -> Void

    /// A poll about to make its first look (``lookFirst()``).
    /// - Parameters:
    ///   - look: Whether the wait is over: the answer, or nil to wait on; when the time is
    ///     up it must answer.
    ///   - finished: Called once, before the answer is given.
    init(
        deadline: DispatchTime, workers: RequestWorkers,
        look: @escaping @Sendable (_ timeIsUp: Bool) -> HTTPResponse?,
        finished: @escaping @Sendable () -> Void
    ) {
        self.deadline = deadline
        self.workers = workers
        self.look = look
        self.finished = finished
    }

    /// The first look, on the caller's thread: the answer if the wait is over already;
    /// else nil, and the poll waits, until its deadline at most, for ``answer``.
    func lookFirst() -> HTTPResponse? {
        if let response = look(false) {
            finish(response)
            return response
        }
        DispatchQueue.global().asyncAfter(deadline: deadline) { [self] in wake() }
        settle()
        return nil
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
        if let response = look(timeIsUp) {
            finish(response)
        } else {
            settle()
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
