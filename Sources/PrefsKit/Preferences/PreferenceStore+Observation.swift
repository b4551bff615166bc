extension PreferenceStore {
    /// The values of a typed key: the current value first, then the value after each
    /// change, whether made by this process or another (another app instance, the `prefs`
    /// command).
    ///
    /// Changes by other processes are noticed through file events (Linux), else by polling
    /// the database every 20 ms while anyone observes. A removed key yields its default.
    /// ```swift
    /// for await hasViewed in store.values(for: .hasViewedWalkthrough) { ... }
    /// ```
    public func values<Value>(for key: Prefs.Key<Value>) -> AsyncStream<Value> {
        let (stream, continuation) = AsyncStream<Value>.makeStream(
            bufferingPolicy: .bufferingNewest(256))
        let observerID = database.state.withLock { state in
            continuation.yield(self[key])
            return state.addObserver(
                PreferenceObserver(suite: suite, key: key.name) { change in
                    continuation.yield(self.resolve(change.value, for: key))
                })
        }
        finishObserving(continuation, observerID: observerID)
        return stream
    }

    /// Every change of the suite, from any process, as it is committed.
    public func changes() -> AsyncStream<PreferenceChange> {
        let (stream, continuation) = AsyncStream<PreferenceChange>.makeStream(
            bufferingPolicy: .bufferingNewest(4096))
        let observerID = database.state.withLock { state in
            state.addObserver(
                PreferenceObserver(suite: suite, key: nil) { change in
                    continuation.yield(change)
                })
        }
        finishObserving(continuation, observerID: observerID)
        return stream
    }

    /// The value a typed key reads given a stored value (nil = absent). Called under the
    /// database lock.
    private func resolve<Value>(_ stored: PreferenceValue?, for key: Prefs.Key<Value>)
        -> Value
    {
        if let stored, let value = key.decode(stored) { return value }
        if stored == nil,
            let fallback = database.state.withLock({
                try? self.fallback(forKey: key.name, state: $0)
            }),
            let value = key.decode(fallback)
        {
            return value
        }
        return key.defaultValue
    }

    private func finishObserving<Element>(
        _ continuation: AsyncStream<Element>.Continuation, observerID: Int
    ) {
        let database = self.database
        continuation.onTermination = { _ in
            database.state.withLock { $0.removeObserver(observerID) }
        }
        database.startWatchingForChanges()
    }
}
