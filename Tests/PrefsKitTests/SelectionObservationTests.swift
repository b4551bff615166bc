import Foundation
import Observation
import TestSupport
import Testing

@testable import PrefsKit

/// Selections drive views as preferences do: a read registers with Swift's Observation, and
/// a change fires it, from this store, at a transaction's commit (not on rollback) and from
/// another process.
@Suite(.serialized) struct SelectionObservationTests {
    let folder: TemporaryFolder
    let path: String
    let selections: SelectionStore

    init() throws {
        folder = try TemporaryFolder()
        path = folder.path("prefs.sqlite")
        selections = SelectionStore(database: try AppDatabase(path: path))
        try selections.define("carousel", count: 13, policy: .clamp, initialIndex: 2)
        try selections.define("pager", count: 4, policy: .wrap)
    }

    private func track(_ apply: () -> Void) -> ObservationFirings {
        trackObservation(apply)
    }

    @Test func aLocalChangeFiresForTheSelectionReadOnly() throws {
        let carousel = track { _ = try? selections.selection(named: "carousel") }
        let pager = track { _ = try? selections.selection(named: "pager") }
        try selections.next("carousel")
        #expect(carousel.value == 1)
        #expect(pager.value == 0)
        #expect(try selections.selection(named: "carousel")?.index == 3)
    }

    @Test func aTransactionFiresAtItsCommitAndARollbackNever() throws {
        let carousel = track { _ = try? selections.selection(named: "carousel") }
        try selections.database.transaction {
            try selections.next("carousel")
            #expect(carousel.value == 0, "fired before the commit")
        }
        #expect(carousel.value == 1)
        let again = track { _ = try? selections.selection(named: "carousel") }
        struct Abandoned: Error {}
        #expect(throws: Abandoned.self) {
            try selections.database.transaction {
                try selections.next("carousel")
                throw Abandoned()
            }
        }
        #expect(again.value == 0, "fired for a rolled-back change")
        // Nor at the next commit, of another selection.
        try selections.next("pager")
        #expect(again.value == 0, "a rolled-back change was told at a later commit")
        #expect(try selections.selection(named: "carousel")?.index == 3)
    }

    @Test func theListOfEverySelectionFiresForAnyOfThem() throws {
        let every = track { _ = try? selections.all() }
        try selections.previous("pager")
        #expect(every.value == 1)
    }

    @Test func anotherProcessesChangeFiresTheObservation() async throws {
        let carousel = track { _ = try? selections.selection(named: "carousel") }
        let pager = track { _ = try? selections.selection(named: "pager") }
        let result = try runPrefs(["--db", path, "selection", "set", "carousel", "7"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(await waitUntil(upTo: 10) { carousel.value == 1 })
        #expect(pager.value == 0)
        #expect(try selections.selection(named: "carousel")?.index == 7)
    }

    @Test func anotherConnectionsChangeFiresWithoutANewRead() async throws {
        var options = AppDatabase.Options()
        options.watchesForChanges = false
        let other = SelectionStore(database: try AppDatabase(path: path, options: options))
        let carousel = track { _ = try? selections.selection(named: "carousel") }
        let pager = track { _ = try? selections.selection(named: "pager") }
        try other.select(9, in: "carousel")
        #expect(await waitUntil(upTo: 10) { carousel.value == 1 })
        #expect(pager.value == 0)
    }

    /// A write of this connection sees another connection's commit from before it, and
    /// tells that commit's observers then: the file monitor skips its looks for events a
    /// write of this process came after, so nothing may wait for them.
    @Test func aWriteHereTellsOfAnotherConnectionsChangeBeforeIt() throws {
        var options = AppDatabase.Options()
        options.watchesForChanges = false  // nothing else looks: only the write can tell
        let here = SelectionStore(database: try AppDatabase(path: path, options: options))
        let other = SelectionStore(database: try AppDatabase(path: path, options: options))
        let carousel = trackObservation { _ = try? here.selection(named: "carousel") }
        try other.select(9, in: "carousel")
        #expect(carousel.value == 0)
        try PreferenceStore(database: here.database).setValue(.int(1), forKey: "unrelated")
        #expect(carousel.value == 1)
        #expect(try here.selection(named: "carousel")?.index == 9)
    }
}
