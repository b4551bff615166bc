#if canImport(FoundationEssentials) && !PREFS_FULL_FOUNDATION
    import FoundationEssentials
#else
    import Foundation
#endif

/// Applies changes pulled from the hub to the device, inside the device's write transaction:
/// the newest clock wins per field, the losing side of a conflict is kept, bookmarks are
/// rebuilt from their fields and their kinds renumbered in the merged order. Nothing applied
/// here is captured for sync again.
struct SyncMerge {
    let state: DatabaseState
    let sync: any SyncRepository
    /// How far past this device's wall clock its clock may follow a pulled one.
    var boundMilliseconds = SyncValidation.defaultClockBoundMilliseconds

    struct Outcome {
        /// Changes that won and were applied.
        var applied = 0
        /// Conflicts decided (their losing sides kept).
        var conflicts = 0
        /// Changes that could not be applied (malformed), recorded and skipped.
        var refused = 0
    }

    /// Applies the changes, each checked first: one that breaks the rules
    /// (``SyncValidation``) or cannot be applied is recorded and skipped, and the rest go on.
    func apply(_ changes: [SyncChange]) throws -> Outcome {
        try sync.setApplying(true)
        var outcome = Outcome()
        var bookmarks: [[String]] = []
        var seen: Set<[ExactName]> = []
        let now = Date()
        for change in changes {
            if let problem = SyncValidation.problem(with: change) {
                try sync.recordRefused(change, direction: "pull", reason: problem, at: now)
                outcome.refused += 1
                continue
            }
            guard let clock = HybridClock(change.clock), let ident = SyncIdent.parts(change.ident)
            else { continue }
            // Checked above by the rules, a change applies; a failure here is the file's (an
            // I/O error, a full disk) and fails the round, which then applies nothing.
            try apply(
                change, clock: clock, ident: ident, outcome: &outcome, bookmarks: &bookmarks,
                seen: &seen)
        }
        if !bookmarks.isEmpty { state.feed.states.willChangeBookmarks() }
        // One batch: a pull of many bookmarks writes their search rows together.
        try state.engine.bookmarks.batchingSearchRows {
            var kinds: [String] = []
            for bookmark in bookmarks {
                // One bookmark that cannot be made (its merged fields break a rule) is
                // recorded and left as it was; the others go on.
                do {
                    try state.engine.nestedTransaction {
                        try rebuild(kind: bookmark[0], itemID: bookmark[1])
                    }
                } catch let error as BookmarkError {
                    let address = SyncChange(
                        entity: .bookmark, ident: SyncIdent.make(bookmark), field: "exists",
                        clock: "", present: true, value: nil)
                    try sync.recordRefused(
                        address, direction: "pull", reason: String(describing: error), at: now)
                    outcome.refused += 1
                    continue
                }
                if !kinds.contains(where: { ExactName.sameBytes($0, bookmark[0]) }) {
                    kinds.append(bookmark[0])
                }
            }
            for kind in kinds { try renumber(kind: kind) }
        }
        try sync.setApplying(false)
        return outcome
    }

    /// Applies one change that keeps the rules.
    private func apply(
        _ change: SyncChange, clock: HybridClock, ident: [String], outcome: inout Outcome,
        bookmarks: inout [[String]], seen: inout Set<[ExactName]>
    ) throws {
        try sync.receive(clock: clock, boundMilliseconds: boundMilliseconds)
        let local = try sync.field(change.address)
        if let local, local.change.clock == change.clock { return }
        if let local, local.change.clock > change.clock {
            // This device wrote the field later and has yet to push it: the pulled change
            // loses, here and (once pushed) on the hub.
            if local.isPending {
                try sync.recordConflict(lost: change, wonBy: local.change.clock, at: Date())
                outcome.conflicts += 1
            }
            return
        }
        if let local, local.isPending {
            var lost = local.change
            if lost.entity == .preference, ident.count == 2 {
                lost.value = try state.engine.preferences.value(
                    suite: ident[0], key: ident[1])
            }
            try sync.recordConflict(lost: lost, wonBy: change.clock, at: Date())
            outcome.conflicts += 1
        }
        try sync.setField(change, isPending: false)
        outcome.applied += 1
        switch change.entity {
        case .preference:
            guard ident.count == 2,
                try !sync.isDeviceLocal(suite: ident[0], key: ident[1])
            else { return }
            try applyPreference(change, suite: ident[0], key: ident[1], clock: clock)
        case .bookmark, .tag:
            let bookmark = Array(ident.prefix(2))
            if bookmark.count == 2, seen.insert(bookmark.map(ExactName.init)).inserted {
                bookmarks.append(bookmark)
            }
        }
    }

    private func applyPreference(
        _ change: SyncChange, suite: String, key: String, clock: HybridClock
    ) throws {
        let preferences = state.engine.preferences
        if !change.present {
            try preferences.removeValue(suite: suite, key: key)
        } else if let value = change.value {
            try preferences.setValue(
                value, suite: suite, key: key, version: nil,
                at: Date(timeIntervalSince1970: Double(clock.milliseconds) / 1000))
        }
    }

    /// Makes the bookmark what its merged fields and tags say.
    private func rebuild(kind: String, itemID: String) throws {
        let repository = state.engine.bookmarks
        let fields = try sync.bookmarkFields(kind: kind, itemID: itemID)
        let existing = try repository.bookmark(kind: kind, itemID: itemID)
        guard let exists = fields["exists"] else { return }
        guard exists.present else {
            if let existing { try repository.delete(id: existing.id) }
            return
        }
        func text(_ name: String, else kept: String?) -> String? {
            guard let field = fields[name] else { return kept }
            if case .string(let text) = field.value { return text }
            return nil
        }
        let url = text("url", else: existing?.urlString)
        // The folder path, as SyncIdent text of its names ("" at the top level).
        let folder = text("folder", else: nil).map { $0.isEmpty ? [] : SyncIdent.parts($0) ?? [] }
        let draft = BookmarkDraft(
            kind: kind, itemID: itemID,
            title: text("title", else: existing?.title) ?? itemID,
            url: url.flatMap { URL(string: $0) },
            category: text("category", else: existing?.category), folder: folder,
            tags: try sync.bookmarkTags(kind: kind, itemID: itemID),
            note: text("note", else: existing?.note))
        let now = Date()
        if let existing {
            // By bytes: a title that changed only in its Unicode spelling is still a change,
            // or devices would keep different bytes forever.
            let isSame =
                ExactName.sameBytes(existing.title, draft.title)
                && ExactName.sameBytes(existing.urlString, url)
                && ExactName.sameBytes(existing.category, draft.category)
                && ExactName.sameBytes(existing.note, draft.note)
                && ExactName.sameBytes(existing.tags, draft.tags.sorted(by: ExactName.precedes))
                && (folder.map { ExactName.sameBytes(existing.folder, $0) } ?? true)
            if !isSame {
                _ = try repository.update(id: existing.id, with: draft, in: .draft, at: now)
            }
        } else {
            _ = try repository.insertIfAbsent(
                draft, in: .draft, at: now, id: nil, createdAt: nil)
        }
    }

    /// Orders a kind's bookmarks by their merged positions (ties by item id), densely.
    private func renumber(kind: String) throws {
        let repository = state.engine.bookmarks
        let positions = try sync.bookmarkPositions(kind: kind)
        let ordered = try repository.list(BookmarkQuery(kind: kind)).map { bookmark in
            (order: positions[ExactName(bookmark.itemID)] ?? bookmark.position, bookmark: bookmark)
        }.sorted {
            // Ties by the item id's bytes: the same order on every device, also for ids that
            // Swift's `<` cannot tell apart.
            $0.order != $1.order
                ? $0.order < $1.order : ExactName.precedes($0.bookmark.itemID, $1.bookmark.itemID)
        }
        for (rank, entry) in ordered.enumerated() where entry.bookmark.position != rank {
            try repository.setPosition(rank, id: entry.bookmark.id)
        }
    }
}
