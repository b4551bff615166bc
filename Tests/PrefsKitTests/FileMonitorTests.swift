import Foundation
import TestSupport
import Testing

@testable import PrefsKit

/// The file monitor's looks: one thread serves every database of the process, so a look
/// never waits for a database's lock, and events that a write of this process came after
/// need no look at all.
@Suite struct FileMonitorTests {
    @Test func aLookNeverWaitsForALockThisProcessHolds() throws {
        let folder = try TemporaryFolder()
        let database = try AppDatabase(path: folder.path("prefs.sqlite"))
        try PreferenceStore(database: database).setValue(.int(0), forKey: "warm")
        let held = DispatchSemaphore(value: 0)
        let holding = Thread {
            try? database.read { _ in
                held.signal()
                usleep(1_000_000)
            }
        }
        holding.start()
        held.wait()
        let started = Date()
        let outcome = database.changeCheck.fileEventCheck(eventsRead: FileChangeMonitor.now())
        let waited = Date().timeIntervalSince(started)
        #expect(outcome == .busy)
        #expect(waited < 0.1, "the look waited \(waited) s for the lock")
        while holding.isExecuting { usleep(10_000) }
        #expect(
            database.changeCheck.fileEventCheck(eventsRead: FileChangeMonitor.now()) == .looked)
    }

    @Test func eventsAWriteOfThisProcessCameAfterNeedNoLook() throws {
        let folder = try TemporaryFolder()
        let database = try AppDatabase(path: folder.path("prefs.sqlite"))
        let store = PreferenceStore(database: database)
        try store.setValue(.int(0), forKey: "warm")
        let eventsRead = FileChangeMonitor.now()
        #expect(database.changeCheck.fileEventCheck(eventsRead: eventsRead) == .looked)
        try store.setValue(.int(1), forKey: "warm")
        #expect(database.changeCheck.fileEventCheck(eventsRead: eventsRead) == .covered)
        // Events read after that write are looked at: they may be another process's.
        #expect(
            database.changeCheck.fileEventCheck(eventsRead: FileChangeMonitor.now()) == .looked)
    }
}
