// prefs-idle-observer PATH SECONDS: a process that observes a key and sees no change, as an
// idle app with a view on a preference. It observes the key both ways (an observer stream
// and Swift's Observation), sleeps on its main thread, and prints the context switches of all
// its threads over the sleep, then how it detects changes.
//
// No Swift concurrency here: an async main parks the main thread and runs its code on a
// worker, and a worker blocked in sleep starts libdispatch's once-a-second check for blocked
// workers, which would be counted against the store.
import Observation
import PrefsKit

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

let arguments = CommandLine.arguments
guard arguments.count == 3, let seconds = UInt32(arguments[2]) else {
    print("usage: prefs-idle-observer PATH SECONDS")
    exit(64)
}
do {
    let store = PreferenceStore(database: try AppDatabase(path: arguments[1]))
    let key = Prefs.Key("observed", default: -1)
    let stream = store.values(for: key)  // an observer, never consumed: nothing changes
    withObservationTracking {
        _ = store[key]
    } onChange: {
    }
    sleep(1)  // start-up settles
    var before = rusage()
    getrusage(RUSAGE_SELF.rawValue, &before)
    sleep(seconds)
    var after = rusage()
    getrusage(RUSAGE_SELF.rawValue, &after)
    let switches = (after.ru_nvcsw + after.ru_nivcsw) - (before.ru_nvcsw + before.ru_nivcsw)
    print("\(switches) \(store.database.changeDetection())")
    _ = stream
} catch {
    print("prefs-idle-observer: \(error)")
    exit(1)
}
