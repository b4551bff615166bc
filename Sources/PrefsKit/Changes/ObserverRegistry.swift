/// The observers of a database's preferences, and what the suite-wide ones last heard, so
/// that a gap in the history can be made good.
final class ObserverRegistry {
    // Used under the database's lock only: no runtime check of each access.
    @exclusivity(unchecked) private var observers: [Int: PreferenceObserver] = [:]
    /// For each suite watched by a suite-wide observer, its values as the observers last
    /// heard of them. When history rows were pruned before they were read (a gap), the
    /// difference between this and the table is what the observers missed.
    @exclusivity(unchecked) private var observedSuites: [ExactName: [ExactName: PreferenceValue]] =
        [:]
    private var nextID = 0

    var isEmpty: Bool { observers.isEmpty }

    /// Whether adding this observer needs a picture of its suite's values first.
    func needsSnapshot(for observer: PreferenceObserver) -> Bool {
        observer.key == nil && observedSuites[ExactName(observer.suite)] == nil
    }

    /// Adds an observer; a suite-wide one starts from `snapshot`, the suite's values now.
    func add(_ observer: PreferenceObserver, snapshot: [ExactName: PreferenceValue]?) -> Int {
        if let snapshot { observedSuites[ExactName(observer.suite)] = snapshot }
        nextID += 1
        observers[nextID] = observer
        return nextID
    }

    func remove(_ id: Int) {
        guard let removed = observers.removeValue(forKey: id), removed.key == nil else { return }
        if !observers.values.contains(where: {
            $0.key == nil && ExactName.sameBytes($0.suite, removed.suite)
        }) {
            observedSuites[ExactName(removed.suite)] = nil
        }
    }

    /// Tells the observers of new history rows. After a gap (rows pruned before they were
    /// read) key observers get their key's current value, suite observers one change per
    /// key that differs from what they last heard.
    func deliver(
        _ changes: [PreferenceChange], afterGap hasGap: Bool, preferences: any PreferenceRepository
    ) {
        guard !observers.isEmpty, let newest = changes.last else { return }
        let missed = hasGap ? resynchronize(at: newest, preferences: preferences) : [:]
        if !hasGap {
            for change in changes where observedSuites[ExactName(change.suite)] != nil {
                observedSuites[ExactName(change.suite)]?[ExactName(change.key)] = change.value
            }
        }
        for observer in observers.values {
            if hasGap, let key = observer.key {
                let current = try? preferences.value(suite: observer.suite, key: key)
                observer.deliver(
                    PreferenceChange(
                        id: newest.id, suite: observer.suite, key: key, value: current,
                        oldValue: nil, changedAt: newest.changedAt))
            } else if hasGap {
                for change in missed[ExactName(observer.suite)] ?? [] { observer.deliver(change) }
            } else {
                for change in changes where observer.matches(change) { observer.deliver(change) }
            }
        }
    }

    /// After a gap: the changes that turn each observed suite's last-heard values into its
    /// current ones (sorted by key), dated like the newest history row.
    private func resynchronize(
        at newest: PreferenceChange, preferences: any PreferenceRepository
    ) -> [ExactName: [PreferenceChange]] {
        var missed: [ExactName: [PreferenceChange]] = [:]
        for (suite, heard) in observedSuites {
            guard let entries = try? preferences.entries(suite: suite.string) else { continue }
            let current = Self.byName(entries)
            var changes: [PreferenceChange] = []
            for key in Set(heard.keys).union(current.keys).sorted() where heard[key] != current[key]
            {
                changes.append(
                    PreferenceChange(
                        id: newest.id, suite: suite.string, key: key.string, value: current[key],
                        oldValue: heard[key], changedAt: newest.changedAt))
            }
            missed[suite] = changes
            observedSuites[suite] = current
        }
        return missed
    }

    /// Entries as a dictionary by exact name (nil, a failed read, as empty).
    static func byName(_ entries: [(key: String, value: PreferenceValue)]?) -> [ExactName:
        PreferenceValue]
    {
        var result: [ExactName: PreferenceValue] = [:]
        for entry in entries ?? [] { result[ExactName(entry.key)] = entry.value }
        return result
    }
}
