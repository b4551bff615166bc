// prefs-stress: a library-based writer and reader for the reliability tests, the
// counterpart of the `prefs` command in mixed-process runs.
//
//   prefs-stress write DB PREFIX COUNT [CONFIRM-FILE]   set PREFIX0...PREFIX(COUNT-1) to 0...
//   prefs-stress read DB PREFIX COUNT                    read them back; values must match keys
//   prefs-stress adopt DB NEW COUNT OLD                  read COUNT typed keys NEW0... declared
//                                                        with the previous names OLD0...
//   prefs-stress upgrade DB PREFIX COUNT                 read COUNT versioned keys PREFIX0...
//                                                        (version 2: {"width":W} becomes
//                                                        {"size":{"width":W}})
//   prefs-stress failed-write DB KEY 1                   open DB read-only and set the typed
//                                                        key KEY through the subscript setter,
//                                                        which cannot throw: the failure goes
//                                                        to the store's default error handler
//
// A write is confirmed (its index appended to CONFIRM-FILE) only after the commit
// returned. Busy past the timeout is retried; the number of retries goes to stderr.
// Exit: 0 done, 1 a value read back wrong, 64 usage, 70 any other error.
import Foundation
import PrefsKit
import PrefsPostgreSQL

let arguments = CommandLine.arguments
guard arguments.count >= 5, let count = Int(arguments[4]) else {
    FileHandle.standardError.write(
        Data("usage: prefs-stress write|read DB PREFIX COUNT [CONFIRM-FILE]\n".utf8))
    exit(64)
}
let (mode, path, prefix) = (arguments[1], arguments[2], arguments[3])

func fail(_ message: String, _ code: Int32) -> Never {
    FileHandle.standardError.write(Data("prefs-stress: \(message)\n".utf8))
    exit(code)
}

let store: PreferenceStore
do {
    // On a server, the account of PREFS_ACCOUNT (a service role must name one).
    var options = PostgreSQLOptions()
    options.account = ProcessInfo.processInfo.environment["PREFS_ACCOUNT"]
    options.isReadOnly = mode == "failed-write"
    store = PreferenceStore(
        database: AppDatabase.isConnectionString(path)
            ? try AppDatabase.postgreSQL(path, options: options)
            : try AppDatabase(path: path, options: options.database))
} catch  where error == .busy(path: path) {
    fail("\(error)", 75)
} catch {
    fail("\(error)", 70)
}

var retries = 0
switch mode {
case "failed-write":
    store[Prefs.Key(prefix, default: 0)] = 1
    print("went on after the failed write")
case "write":
    let confirm = arguments.count > 5 ? FileHandle(forWritingAtPath: arguments[5]) : nil
    confirm?.seekToEndOfFile()
    for index in 0..<count {
        while true {
            do {
                try store.setValue(.int(index), forKey: "\(prefix)\(index)")
                break
            } catch let error as DatabaseError {
                switch error.kind {
                case .busy: break
                case .unavailable: usleep(20_000)  // a server restarting: try again shortly
                default: fail("\(error)", 70)
                }
                retries += 1
            } catch {
                fail("\(error)", 70)
            }
        }
        confirm?.write(Data("\(index)\n".utf8))
    }
case "read":
    for index in 0..<count {
        do {
            if let value = try store.storedValue(forKey: "\(prefix)\(index)"), value != .int(index)
            {
                fail("\(prefix)\(index) reads \(value)", 1)
            }
        } catch let error as DatabaseError {
            guard case .busy = error.kind else { fail("\(error)", 70) }
            retries += 1
        } catch {
            fail("\(error)", 70)
        }
    }
case "adopt":
    guard arguments.count >= 6 else { fail("usage: prefs-stress adopt DB NEW COUNT OLD", 64) }
    for index in 0..<count {
        let key = Prefs.Key(
            "\(prefix)\(index)", default: -1, previousNames: ["\(arguments[5])\(index)"])
        _ = store[key]
    }
case "upgrade":
    for index in 0..<count {
        _ = store[ResizedLayout.key("\(prefix)\(index)")]
    }
default:
    fail("unknown mode '\(mode)'", 64)
}
if retries > 0 { FileHandle.standardError.write(Data("retries: \(retries)\n".utf8)) }

/// A Codable value whose shape changed: version 1 stored {"width": W}; version 2 nests it.
struct ResizedLayout: Codable, JSONPreference, Equatable {
    struct Size: Codable, Equatable { var width: Int }
    var size: Size

    private struct Version1: Codable { var width: Int }

    static func key(_ name: String) -> Prefs.Key<ResizedLayout> {
        Prefs.Key(name, default: ResizedLayout(size: Size(width: -1)), version: 2) { json, _ in
            let old = try JSONDecoder().decode(Version1.self, from: json)
            return ResizedLayout(size: Size(width: old.width))
        }
    }
}
