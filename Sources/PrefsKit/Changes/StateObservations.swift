/// Selections as Swift's Observation sees them: a read of a selection (or of all of them)
/// registers with it, and a committed change, made by this connection (a write, a
/// transaction at its commit, never one that rolled back) or by another connection or
/// process, tells whoever registered.
///
/// This connection's writes are known by name. Another connection's commits are noticed as
/// the preferences' are (the commit token, file events where there are any); the observed
/// selections are then read again and only those that differ are told.
final class StateObservations {
    private struct Observed {
        let observation: KeyObservation
        var seen: Selection?
    }

    private let tracksReads: Bool
    private var selections: [ExactName: Observed] = [:]
    /// The list of every selection, when a read of it was registered.
    private var everySelection: (observation: KeyObservation, seen: [Selection])?
    /// Selections the open write transaction changed, told at its commit.
    private var pending: Set<ExactName> = []

    init(tracksReads: Bool) {
        self.tracksReads = tracksReads
    }

    /// Whether any selection read was registered (another connection's commits are then
    /// worth a look).
    var isObserving: Bool { !selections.isEmpty || everySelection != nil }

    /// The observation of a selection, made on first need with what was just read; nil when
    /// reads are not tracked.
    func observation(ofSelection name: String, reading current: Selection?) -> KeyObservation? {
        guard tracksReads else { return nil }
        let key = ExactName(name)
        if let observed = selections[key] { return observed.observation }
        let observation = KeyObservation()
        selections[key] = Observed(observation: observation, seen: current)
        return observation
    }

    /// The observation of the list of every selection.
    func observationOfEverySelection(reading current: [Selection]) -> KeyObservation? {
        guard tracksReads else { return nil }
        if let every = everySelection { return every.observation }
        let observation = KeyObservation()
        everySelection = (observation, current)
        return observation
    }

    /// A write of the open transaction is changing a selection.
    func willChange(selection name: String) {
        pending.insert(ExactName(name))
    }

    /// The transaction rolled back: what it changed is not told.
    func didRollBack() {
        pending.removeAll()
    }

    /// The transaction committed: the observations of what it changed, with what they saw
    /// brought up to date.
    func didCommit(reading repository: any SelectionRepository) -> [KeyObservation] {
        guard !pending.isEmpty else { return [] }
        defer { pending.removeAll() }
        var told: [KeyObservation] = []
        for name in pending {
            guard var observed = selections[name] else { continue }
            observed.seen = try? repository.selection(named: name.string)
            selections[name] = observed
            told.append(observed.observation)
        }
        if let every = everySelection {
            everySelection = (every.observation, (try? repository.all()) ?? every.seen)
            told.append(every.observation)
        }
        return told
    }

    /// Another connection committed: the observed selections that now differ.
    func afterOtherCommit(reading repository: any SelectionRepository) -> [KeyObservation] {
        var told: [KeyObservation] = []
        for (name, observed) in selections {
            let current: Selection?
            do {
                current = try repository.selection(named: name.string)
            } catch {
                continue
            }
            guard current != observed.seen else { continue }
            selections[name]?.seen = current
            told.append(observed.observation)
        }
        if let every = everySelection, let current = try? repository.all(), current != every.seen {
            everySelection = (every.observation, current)
            told.append(every.observation)
        }
        return told
    }
}
