import Foundation
import TestSupport
import Testing

/// libpq is loaded when a server is named, not when `prefs` starts: a command on a file maps
/// neither libpq nor what libpq brings (Kerberos, LDAP, GnuTLS), and a machine without libpq
/// still runs every file command. Naming a server there says what is missing (exit 69).
@Suite(
    .enabled(
        if: (try? WhatUsersRanIntoTests.binaryHasServerEngine()) == true,
        "this build of prefs has no server engine (the static install)"))
struct LibPQLoadingTests {
    /// The loader's own account of what it maps (`LD_DEBUG=files`), for one command.
    func librariesLoaded(by arguments: [String], environment: [String: String] = [:]) throws
        -> String
    {
        try runPrefs(arguments, environment: environment.merging(["LD_DEBUG": "files"]) { $1 })
            .stderr
    }

    @Test func aCommandOnAFileLoadsNoLibpq() throws {
        let folder = try TemporaryFolder()
        let db = ["--db", folder.path("prefs.sqlite")]
        #expect(try runPrefs(db + ["set", "hasViewedWalkthrough", "true"]).status == 0)
        let loaded = try librariesLoaded(by: db + ["get", "hasViewedWalkthrough"])
        // The loader did report: SQLite is among what it mapped.
        #expect(loaded.contains("libsqlite3"), "\(loaded.prefix(400))")
        for library in ["libpq", "libkrb5", "libldap", "libgnutls"] {
            #expect(!loaded.contains(library), "\(library) was loaded for a file command")
        }
    }

    @Test func namingAServerLoadsLibpqThen() throws {
        let loaded = try librariesLoaded(by: [
            "--db", "postgresql://127.0.0.1:1/none", "get", "hasViewedWalkthrough",
        ])
        #expect(loaded.contains("libpq.so.5"), "\(loaded.suffix(400))")
    }

    @Test func aMissingLibpqExits69NamingIt() throws {
        let folder = try TemporaryFolder()
        let missing = folder.path("nowhere/libpq.so.5")
        let result = try runPrefs(
            ["--db", "postgresql://127.0.0.1:1/none", "get", "x"],
            environment: ["PREFS_LIBPQ": missing])
        #expect(result.status == 69, "\(result.stderr)")
        #expect(result.stderr.contains("could not be loaded"), "\(result.stderr)")
        #expect(result.stderr.contains(missing), "\(result.stderr)")
        #expect(result.stderr.split(separator: "\n").count == 1, "\(result.stderr)")
        // File commands do not care.
        let file = try runPrefs(
            ["--db", folder.path("prefs.sqlite"), "set", "a", "1"],
            environment: ["PREFS_LIBPQ": missing])
        #expect(file.status == 0, "\(file.stderr)")
    }

    @Test func aLibraryThatIsNotLibpqExits69NamingWhatItLacks() throws {
        // SQLite's library loads, but has none of libpq's functions.
        let sqlite = try #require(
            [
                "/usr/lib/x86_64-linux-gnu/libsqlite3.so.0",
                "/usr/lib/aarch64-linux-gnu/libsqlite3.so.0",
            ]
            .first { FileManager.default.fileExists(atPath: $0) })
        let result = try runPrefs(
            ["--db", "postgresql://127.0.0.1:1/none", "set", "x", "1"],
            environment: ["PREFS_LIBPQ": sqlite])
        #expect(result.status == 69, "\(result.stderr)")
        #expect(result.stderr.contains("has no PQconnectdb"), "\(result.stderr)")
    }
}
