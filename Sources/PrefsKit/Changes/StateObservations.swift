/// Selections and bookmarks as Swift's Observation sees them: a read of a selection (or of
/// all of them), of a bookmark or of a bookmark query registers with it, and a committed
/// change, made by this connection (a write, a transaction at its commit, never one that
/// rolled back) or by another connection or process, tells whoever registered.
///
/// This connection's selection writes are known by name; its bookmark writes are known to
/// have happened. Another connection's commits are noticed as the preferences' are (the
/// commit token, file events where there are any). What was read is then read again, and
/// only the reads whose results differ are told.
final class StateObservations {
    /// A bookmark read that a view may depend on.
    enum BookmarkRead: Hashable {
        case item(kind: ExactName, itemID: ExactName)
        case id(Int64)
        case query(BookmarkQuery)
    }

    private struct ObservedRead {
        let observation: KeyObservation
        var seen: AnyHashable
        let read: (any BookmarkRepository) throws -> AnyHashable
    }

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
    private var bookmarkReads: [BookmarkRead: ObservedRead] = [:]
    /// Whether the open write transaction changed bookmarks.
    private var bookmarksPending = false

    init(tracksReads: Bool) {
        self.tracksReads = tracksReads
    }

    /// Whether any selection read was registered (another connection's commits are then
    /// worth a look).
    var isObserving: Bool {
        !selections.isEmpty || everySelection != nil || !bookmarkReads.isEmpty
    }

    /// The observation of a bookmark read, made on first need with its result; nil when reads
    /// are not tracked.
    func observation(
        of key: BookmarkRead, reading result: AnyHashable,
        readAgain: @escaping (any BookmarkRepository) throws -> AnyHashable
    ) -> KeyObservation? {
        guard tracksReads else { return nil }
        if let observed = bookmarkReads[key] { return observed.observation }
        let observation = KeyObservation()
        bookmarkReads[key] = ObservedRead(observation: observation, seen: result, read: readAgain)
        return observation
    }

    /// A write of the open transaction is changing bookmarks (or their tags or folders).
    func willChangeBookmarks() {
        bookmarksPending = true
    }

    /// The observed bookmark reads whose results now differ, brought up to date.
    private func changedBookmarkReads(_ repository: any BookmarkRepository) -> [KeyObservation] {
        var told: [KeyObservation] = []
        for (key, observed) in bookmarkReads {
            guard let current = try? observed.read(repository), current != observed.seen else {
                continue
            }
            bookmarkReads[key]?.seen = current
            told.append(observed.observation)
        }
        return told
    }

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
        bookmarksPending = false
    }

    /// The transaction committed: the observations of what it changed, with what they saw
    /// brought up to date.
    func didCommit(
        reading repository: any SelectionRepository, bookmarks: any BookmarkRepository
    ) -> [KeyObservation] {
        var told: [KeyObservation] = []
        if bookmarksPending {
            bookmarksPending = false
            told = changedBookmarkReads(bookmarks)
        }
        guard !pending.isEmpty else { return told }
        defer { pending.removeAll() }
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
    func afterOtherCommit(
        reading repository: any SelectionRepository, bookmarks: any BookmarkRepository
    ) -> [KeyObservation] {
        var told = bookmarkReads.isEmpty ? [] : changedBookmarkReads(bookmarks)
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
