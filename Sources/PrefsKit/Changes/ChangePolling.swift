extension AppDatabase {
    /// How often observers look for commits of other processes.
    static let pollingIntervalMilliseconds = 20

    /// Starts a polling task unless one runs; it ends when the last observer goes.
    func startPollingForChanges() {
        let shouldStart = state.withLock { state -> Bool in
            guard !state.isPolling, state.hasObservers else { return false }
            state.isPolling = true
            return true
        }
        guard shouldStart else { return }
        Task.detached { [self] in
            while pollOnce() {
                try? await Task.sleep(for: .milliseconds(Self.pollingIntervalMilliseconds))
            }
        }
    }

    private func pollOnce() -> Bool {
        state.withLock { state in
            guard state.hasObservers else {
                state.isPolling = false
                return false
            }
            try? state.feed.refresh()
            return true
        }
    }
}
