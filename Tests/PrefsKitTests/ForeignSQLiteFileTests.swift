import Foundation
import SQLiteCore
import TestSupport
import Testing

@testable import PrefsInterchange
@testable import PrefsKit

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Firefox's places.sqlite comes from elsewhere: reading it must not make it compute, must
/// not read values past the length budget, and the copy made of it (when Firefox holds it
/// open with a WAL) is private and goes away on every path.
@Suite struct ForeignSQLiteFileTests {
    let folder: TemporaryFolder

    init() throws {
        folder = try TemporaryFolder()
    }

    /// A minimal places.sqlite: the tables import reads, a root and one link.
    func makePlaces(_ path: String, bookmarksColumns: String = "", title: String = "Mozilla")
        throws -> Connection
    {
        let connection = try Connection(path: path)
        for statement in [
            "CREATE TABLE moz_places (id INTEGER PRIMARY KEY, url LONGVARCHAR, title LONGVARCHAR)",
            "CREATE TABLE moz_bookmarks (id INTEGER PRIMARY KEY, type INTEGER, fk INTEGER,"
                + " parent INTEGER, position INTEGER, title LONGVARCHAR, dateAdded INTEGER,"
                + " lastModified INTEGER, guid TEXT\(bookmarksColumns))",
            "INSERT INTO moz_places (id, url, title) VALUES (1, 'https://www.mozilla.org/', 'M')",
            "INSERT INTO moz_bookmarks (id, type, fk, parent, position, title, guid) VALUES"
                + " (1, 2, NULL, 0, 0, '', 'root________'), (2, 2, NULL, 1, 0, 'menu', 'menu________'),"
                + " (10, 1, 1, 2, 0, ?, 'aaaaaaaaaaaa')",
        ] {
            if statement.contains("?") {
                try connection.execute(sql: statement, arguments: [title])
            } else {
                try connection.execute(sql: statement)
            }
        }
        return connection
    }

    @Test func aGeneratedColumnIsNotComputed() throws {
        let path = folder.path("places.sqlite")
        _ = try makePlaces(
            path, bookmarksColumns: ", heavy TEXT GENERATED ALWAYS AS (hex(zeroblob(1000000)))")
        let error = #expect(throws: InterchangeError.self) {
            _ = try FirefoxPlaces.document(atPath: path)
        }
        #expect("\(error.map { "\($0)" } ?? "")".contains("has generated columns"))
    }

    @Test func aValueLongerThanTheBudgetIsRefused() throws {
        let path = folder.path("places.sqlite")
        _ = try makePlaces(path, title: String(repeating: "t", count: 17 << 20))
        let error = #expect(throws: InterchangeError.self) {
            _ = try FirefoxPlaces.document(atPath: path)
        }
        #expect("\(error.map { "\($0)" } ?? "")".contains("cannot read"))
    }

    @Test func theCopyIsPrivateAndRemovedOnEveryPath() throws {
        let scratch = try PrivateTemporaryFolder(prefix: "prefs-test")
        var status = stat()
        #expect(stat(scratch.path, &status) == 0 && status.st_mode & 0o777 == 0o700)
        let source = folder.path("source")
        try Data("secret history".utf8).write(to: URL(fileURLWithPath: source))
        #expect(chmod(source, 0o644) == 0)
        let copy = try scratch.copy(source, as: "copy")
        #expect(stat(copy, &status) == 0 && status.st_mode & 0o777 == 0o600)
        #expect(FileManager.default.contents(atPath: copy) == Data("secret history".utf8))
        let made = scratch.path
        _ = consume scratch
        #expect(!FileManager.default.fileExists(atPath: made))
    }

    @Test func anImportThatFailsLeavesNoCopyBehind() throws {
        // Firefox running: a WAL beside the file, so the two are copied to be read.
        let path = folder.path("places.sqlite")
        let firefox = try makePlaces(
            path, bookmarksColumns: ", heavy TEXT GENERATED ALWAYS AS (upper(title))")
        try firefox.execute(sql: "PRAGMA journal_mode = WAL")
        try firefox.execute(sql: "UPDATE moz_places SET title = 'changed'")
        #expect(FileManager.default.fileExists(atPath: path + "-wal"))
        let before = try scratchEntries()
        #expect(throws: InterchangeError.self) { _ = try FirefoxPlaces.document(atPath: path) }
        #expect(try scratchEntries() == before)
        withExtendedLifetime(firefox) {}
    }

    /// The copies in the system's temporary folder.
    func scratchEntries() throws -> [String] {
        try FileManager.default.contentsOfDirectory(
            atPath: FileManager.default.temporaryDirectory.path
        ).filter { $0.hasPrefix("prefs-places-") }.sorted()
    }
}
