import PrefsKit

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
    let state: DatabaseWriter
    let sync: any SyncRepository
    /// The newest clock this device's clock may follow (``SyncValidation/clockCeiling(hubMilliseconds:bound:wall:)``);
    /// nil: the default bound past the wall clock.
    var ceilingMilliseconds: Int64?

    struct Outcome {
        /// Preferences, bookmarks and tags changed by changes that won and were applied.
        var applied: Int { changed.count }
        /// What they changed: entity and ident.
        var changed: Set<[String]> = []
        /// Conflicts decided (their losing sides kept).
        var conflicts = 0
        /// Changes that could not be applied (malformed), recorded and skipped.
        var refused = 0
    }

    /// Applies the changes, each checked first: one that breaks the rules
    /// (``SyncValidation``) or cannot be applied is recorded and skipped, and the rest go on.
    func apply(_ changes: [SyncChange]) throws -> Outcome {
        try sync.setApplying(true)
        let ceiling =
            try ceilingMilliseconds
            ?? sync.wallClockMilliseconds() + SyncValidation.defaultClockBoundMilliseconds
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
                change, clock: clock, ident: ident, ceiling: ceiling, outcome: &outcome,
                bookmarks: &bookmarks, seen: &seen)
        }
        if !bookmarks.isEmpty { state.willChangeBookmarks() }
        let rebuilder = SyncBookmarkRebuild(bookmarks: state.engine.bookmarks, fields: sync)
        // One batch: a pull of many bookmarks writes their search rows together.
        try state.engine.bookmarks.batchingSearchRows {
            var kinds: [String] = []
            for bookmark in bookmarks {
                // One bookmark that cannot be made (its merged fields break a rule) is
                // recorded and left as it was; the others go on.
                do {
                    try state.engine.nestedTransaction {
                        try rebuilder.rebuild(kind: bookmark[0], itemID: bookmark[1])
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
            for kind in kinds { try rebuilder.renumber(kind: kind) }
        }
        try sync.setApplying(false)
        return outcome
    }

    /// A field's change as this device holds it, with its value: a preference's is in the
    /// store, not in the field's record.
    private func content(of local: SyncFieldState, ident: [String]) throws -> SyncChange {
        var change = local.change
        if change.entity == .preference, ident.count == 2 {
            change.value = try state.engine.preferences.value(suite: ident[0], key: ident[1])
        }
        return change
    }

    /// Applies one change that keeps the rules.
    private func apply(
        _ change: SyncChange, clock: HybridClock, ident: [String], ceiling: Int64,
        outcome: inout Outcome, bookmarks: inout [[String]], seen: inout Set<[ExactName]>
    ) throws {
        try sync.receive(clock: clock, ceilingMilliseconds: ceiling)
        let local = try sync.field(change.address)
        if let local, local.change.clock == change.clock { return }
        if let local, local.change.clock > change.clock {
            // This device wrote the field later and has yet to push it: the pulled change
            // loses, here and (once pushed) on the hub; to the same value, it loses nothing.
            if local.isPending, try !change.saysTheSame(as: content(of: local, ident: ident)) {
                try sync.recordConflict(lost: change, wonBy: local.change.clock, at: Date())
                outcome.conflicts += 1
            }
            return
        }
        if let local, local.isPending {
            let lost = try content(of: local, ident: ident)
            if !lost.saysTheSame(as: change) {
                try sync.recordConflict(lost: lost, wonBy: change.clock, at: Date())
                outcome.conflicts += 1
            }
        }
        try sync.setField(change, isPending: false)
        outcome.changed.insert([change.entity.rawValue, change.ident])
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
}
