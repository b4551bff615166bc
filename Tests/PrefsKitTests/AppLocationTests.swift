import Foundation
import TestSupport
import Testing

@testable import PrefsKit

/// One file per app, as UserDefaults keeps one domain per app: two apps with a key `theme`
/// overwrote each other in the one shared file.
@Suite struct AppLocationTests {
    let folder: TemporaryFolder
    let environment: [String: String]

    init() throws {
        folder = try TemporaryFolder()
        environment = ["HOME": folder.path("home")]
    }

    @Test func twoAppsKeepTheirOwnValueOfOneKey() throws {
        let notes = try DatabaseLocation.defaultPath(
            app: "com.example.notes", environment: environment)
        let mail = try DatabaseLocation.defaultPath(
            app: "com.example.mail", environment: environment)
        #expect(notes == folder.path("home/.local/share/prefs/com.example.notes/prefs.sqlite"))
        #expect(notes != mail)
        let first = PreferenceStore(database: try AppDatabase(path: notes))
        let second = PreferenceStore(database: try AppDatabase(path: mail))
        try first.setValue(.string("dark"), forKey: "theme")
        try second.setValue(.string("light"), forKey: "theme")
        #expect(try first.value(forKey: "theme") == .string("dark"))
        #expect(try second.value(forKey: "theme") == .string("light"))
        let listed = try DatabaseLocation.apps { environment[$0] }.map(\.app)
        #expect(listed == ["com.example.mail", "com.example.notes"])
        // XDG_DATA_HOME moves the data folder; PREFS_DB names one file for every app.
        var moved = environment
        moved["XDG_DATA_HOME"] = folder.path("data")
        #expect(
            try DatabaseLocation.defaultPath(app: "x", environment: moved)
                == folder.path("data/prefs/x/prefs.sqlite"))
        moved["PREFS_DB"] = "/elsewhere.sqlite"
        #expect(
            try DatabaseLocation.defaultPath(app: "x", environment: moved) == "/elsewhere.sqlite")
    }

    @Test func aHostileAppIdentifierIsRefused() {
        for name in [
            "", "../etc", "a/b", ".hidden", "-x", "x y", "x\u{0}", "prefs.sqlite", "é",
            String(repeating: "a", count: 201),
        ] {
            #expect(throws: DatabaseLocation.Problem.self, "\(name)") {
                try DatabaseLocation.defaultPath(app: name, environment: environment)
            }
        }
        #expect((try? DatabaseLocation.validate(appIdentifier: "com.example.Notes_2-beta")) != nil)
        // A name inferred from an executable is made to keep the rules.
        #expect(DatabaseLocation.inferred(from: "My App (2)") == "My-App--2-")
        #expect(DatabaseLocation.inferred(from: "..") == "app")
        #expect(DatabaseLocation.inferred(from: "") == "app")
    }

    @Test func theSharedFileOfOldIsStillFoundUntilTheAppHasItsOwn() throws {
        let shared = try DatabaseLocation.sharedPath { environment[$0] }
        #expect(shared == folder.path("home/.local/share/prefs/prefs.sqlite"))
        let old = PreferenceStore(database: try AppDatabase(path: shared))
        try old.setValue(.string("dark"), forKey: "theme")
        let path = try DatabaseLocation.defaultPath(
            app: "com.example.notes", environment: environment)
        #expect(path == shared)
        #expect(
            try PreferenceStore(database: try AppDatabase(path: path)).value(forKey: "theme")
                == .string("dark"))
        // Once the app's own file exists, it is the one.
        let own = try DatabaseLocation.appPath(app: "com.example.notes") { environment[$0] }
        _ = try AppDatabase(path: own)
        #expect(
            try DatabaseLocation.defaultPath(app: "com.example.notes", environment: environment)
                == own)
    }

    @Test func withoutHomeTheHomeFolderComesFromThePasswordDatabaseNeverTheRoot() throws {
        guard let entry = getpwuid(geteuid()), let directory = entry.pointee.pw_dir else {
            Issue.record("this user has no password entry")
            return
        }
        let home = String(cString: directory)
        for environment in [[:], ["HOME": ""], ["HOME": "/"], ["HOME": "relative"]] {
            let path = try? DatabaseLocation.defaultPath(app: "x", environment: environment)
            if home == "/" || !home.hasPrefix("/") {
                #expect(path == nil, "\(environment)")
            } else {
                #expect(path == home + "/.local/share/prefs/x/prefs.sqlite", "\(environment)")
            }
            #expect(path?.hasPrefix("/.local") != true)
        }
    }
}
