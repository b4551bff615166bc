import Dispatch

/// How a database learns of other connections' commits when no read asks: file events
/// where the engine has files to watch and the system reports their changes, else polling.
enum ChangeDetection {
    /// Nothing asked for it yet.
    case notStarted
    /// The database is gone: the subscription is let go, the polling task ends.
    case closed
    /// Nobody else can commit (a private in-memory database).
    case unneeded
    /// The monitor calls back when the database's files change; nothing runs meanwhile.
    case fileEvents(FileChangeMonitor.Subscription)
    /// A task reads the commit token every `milliseconds` while anyone observes (and every
    /// second while only Swift's Observation may be listening).
    case polling(milliseconds: Int, reason: String)

    /// The file events' subscription, where they are the detection.
    var fileSubscription: FileChangeMonitor.Subscription? {
        if case .fileEvents(let subscription) = self { return subscription }
        return nil
    }

    /// What `doctor` reports.
    var summary: String {
        switch self {
        case .notStarted: "not started (no observer, no store watching)"
        case .closed: "closed"
        case .unneeded: "none needed (a private in-memory database)"
        case .fileEvents(let subscription): "file events (inotify) on '\(subscription.directory)'"
        case .polling(let milliseconds, let reason):
            "polling every \(milliseconds) ms while observed, else every second (\(reason))"
        }
    }
}

extension AppDatabase {
    /// How often a polling database looks when only Swift's Observation may be listening.
    static let observationPollingMilliseconds = 1000

    /// Starts noticing other connections' commits, unless that runs already: subscribes to
    /// file events, or starts a polling task (which ends when nobody listens any more).
    ///
    /// - Parameter forObservation: For a store's reads, which Swift's Observation may track,
    ///   rather than for an observer.
    func startWatchingForChanges(forObservation: Bool = false) {
        let shouldPoll = state.withLock { state -> Bool in
            if forObservation { state.isWatchedForObservation = true }
            if case .notStarted = state.changeDetection {
                state.changeDetection = makeChangeDetection(for: state.engine.changeSignal)
            }
            guard case .polling = state.changeDetection, !state.isPolling else { return false }
            guard state.hasObservers || state.isWatchedForObservation else { return false }
            state.isPolling = true
            return true
        }
        guard shouldPoll else { return }
        // On a queue of its own, not a task of Swift's shared pool: an app whose tasks block
        // every thread of that pool must not leave its observers deaf meanwhile. Nothing
        // waits on a thread between looks. The looks hold the change check, not the
        // database, and end once it is gone.
        Self.poll(changeCheck, on: DispatchQueue(label: "prefs.change-polling"), after: 0)
    }

    private static func poll(_ changeCheck: ChangeCheck, on queue: DispatchQueue, after: Int) {
        queue.asyncAfter(deadline: .now() + .milliseconds(after)) {
            guard let interval = changeCheck.withState({ pollOnce($0) }) ?? nil else { return }
            poll(changeCheck, on: queue, after: interval)
        }
    }

    private func makeChangeDetection(for signal: ChangeSignal) -> ChangeDetection {
        // The callback holds the change check, not the database; the database's deinit ends
        // both.
        let changeCheck = self.changeCheck
        switch signal {
        case .none:
            return .unneeded
        case .polling(let milliseconds, let reason):
            return .polling(milliseconds: milliseconds, reason: reason)
        case .files(let directory, let names):
            guard let monitor = FileChangeMonitor.shared else {
                let reason = FileChangeMonitor.unavailableReason.withLock { $0 }
                return .polling(milliseconds: 20, reason: reason)
            }
            do {
                // Never waits for the lock: a read or write of this process that holds it sees
                // the commits before it by itself (a write reads the history after its last
                // change when it commits), and the monitor looks again soon after.
                let subscription = try monitor.subscribe(
                    directory: directory, names: names, check: changeCheck.fileEventCheck,
                    quietEndCheck: changeCheck.quietEndCheck)
                return .fileEvents(subscription)
            } catch {
                return .polling(milliseconds: 20, reason: "\(error)")
            }
        }
    }

    /// One look of the polling task; the interval to the next, or nil to stop.
    private static func pollOnce(_ state: DatabaseState) -> Int? {
        guard case .polling(let milliseconds, _) = state.changeDetection,
            state.hasObservers || state.isWatchedForObservation
        else {
            state.isPolling = false
            return nil
        }
        try? state.feed.refresh()
        return state.hasObservers ? milliseconds : observationPollingMilliseconds
    }

    /// How this database notices other processes' commits when no read asks (file events,
    /// or polling and why), as `prefs doctor` reports it. Sets the detection up when nothing
    /// has yet.
    public func changeDetection() -> String {
        startWatchingForChanges()
        return state.withLock { $0.changeDetection.summary }
    }

    /// The detection in place, without setting one up.
    var changeDetectionSummary: String {
        state.withLock { $0.changeDetection.summary }
    }
}
