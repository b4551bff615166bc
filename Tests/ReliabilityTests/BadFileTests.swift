import Foundation
import SQLiteCore
import TestSupport
import Testing

/// Files that are not sound prefs databases: a clear error, a documented exit code, the file
/// left byte for byte, no crash and no hang.
@Suite struct BadFileTests {
    let folder: TemporaryFolder

    init() throws {
        folder = try TemporaryFolder()
    }

    /// A real database with some content, checkpointed into the main file.
    func sampleDatabase() throws -> String {
        let path = folder.path("sample-\(UUID().uuidString).sqlite")
        for i in 0..<60 {
            #expect(
                try runPrefs([
                    "--db", path, "set", "key\(i)", String(repeating: "v\(i)", count: 30),
                ]).status == 0)
        }
        #expect(
            try runPrefs(["--db", path, "bookmark", "add", "trip", "london", "--title", "London"])
                .status == 0)
        let connection = try Connection(path: path)
        try connection.execute(sql: "PRAGMA wal_checkpoint(TRUNCATE)")
        return path
    }

    /// Runs a command with a time limit; a signal or a hang fails the test.
    func run(_ arguments: [String]) throws -> ProcessOutput {
        let result = try Reliability.shell(
            "timeout -s KILL 20 \"$PREFS\" \(arguments.map { "'\($0)'" }.joined(separator: " "))")
        #expect(result.status < 128, "\(arguments) died with status \(result.status)")
        return result
    }

    func expectRefused(
        _ path: String, code: Int32, message: String? = nil,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let before = FileManager.default.contents(atPath: path)
        for arguments in [
            ["get", "key1"], ["list"], ["set", "a", "1"], ["doctor"], ["bookmark", "list"],
        ] {
            let result = try run(["--db", path] + arguments)
            #expect(
                result.status == code, "\(arguments): \(result.stderr)",
                sourceLocation: sourceLocation)
            #expect(result.stderr.hasPrefix("Error: "), sourceLocation: sourceLocation)
            #expect(result.stderr.split(separator: "\n").count == 1, sourceLocation: sourceLocation)
            if let message {
                #expect(result.stderr == "Error: \(message)\n", sourceLocation: sourceLocation)
            }
        }
        #expect(
            FileManager.default.contents(atPath: path) == before, "\(path) changed",
            sourceLocation: sourceLocation)
    }

    @Test func textFileAndRandomBytesAreRefused() throws {
        let text = folder.path("notes.txt")
        try String(repeating: "dear diary\n", count: 100).write(
            toFile: text, atomically: true, encoding: .utf8)
        try expectRefused(
            text, code: 65,
            message:
                "'\(text)' is not a prefs database or is corrupt (file is not a database); it was left unchanged"
        )
        let random = folder.path("random.bin")
        try Data((0..<8192).map { _ in UInt8.random(in: 0...255) }).write(
            to: URL(fileURLWithPath: random))
        try expectRefused(random, code: 65)
    }

    @Test func emptyFileIsReadAsEmptyAndNotInitializedByReads() throws {
        let empty = folder.path("empty.sqlite")
        _ = FileManager.default.createFile(atPath: empty, contents: Data())
        let result = try run(["--db", empty, "get", "a"])
        #expect(result.status == 1)
        #expect(try run(["--db", empty, "list"]).status == 0)
        #expect(FileManager.default.contents(atPath: empty) == Data())
        #expect(try run(["--db", empty, "set", "a", "1"]).status == 0)
        #expect(try run(["--db", empty, "get", "a"]).stdout == "1\n")
    }

    @Test func damagedHeaderIsRefused() throws {
        let path = try sampleDatabase()
        var bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        bytes.replaceSubrange(0..<16, with: Data(repeating: 0x41, count: 16))
        try bytes.write(to: URL(fileURLWithPath: path))
        try expectRefused(path, code: 65)
    }

    @Test func foreignAndNewerDatabasesAreRefused() throws {
        let foreign = folder.path("places.sqlite")
        do {
            let connection = try Connection(path: foreign)
            try connection.execute(
                sql: "CREATE TABLE moz_places (url TEXT); INSERT INTO moz_places VALUES ('x')")
        }
        try expectRefused(
            foreign, code: 65,
            message: "'\(foreign)' is another application's database; it was left unchanged")
        let newer = try sampleDatabase()
        do {
            let connection = try Connection(path: newer)
            try connection.execute(sql: "PRAGMA user_version = 99")
            try connection.execute(sql: "PRAGMA wal_checkpoint(TRUNCATE)")
        }
        try expectRefused(newer, code: 65)
    }

    @Test func directoryAndSymlinkAreRefused() throws {
        try expectRefused(
            folder.url.path, code: 65,
            message:
                "'\(folder.url.path)' is a directory, not a prefs database; pass a file path with --db"
        )
        let target = try sampleDatabase()
        let link = folder.path("link.sqlite")
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: target)
        try expectRefused(
            link, code: 65,
            message: "'\(link)' is a symbolic link; pass the real path of the database")
    }

    @Test func truncatedAndPageDamagedFilesFailTheirChecks() throws {
        let truncated = try sampleDatabase()
        let bytes = try Data(contentsOf: URL(fileURLWithPath: truncated))
        try bytes.prefix(bytes.count / 2).write(to: URL(fileURLWithPath: truncated))
        let damaged = try sampleDatabase()
        var damagedBytes = try Data(contentsOf: URL(fileURLWithPath: damaged))
        let pageSize = 4096
        damagedBytes.replaceSubrange(
            pageSize * 3..<pageSize * 4, with: Data(repeating: 0xA5, count: pageSize))
        try damagedBytes.write(to: URL(fileURLWithPath: damaged))
        for path in [truncated, damaged] {
            let before = FileManager.default.contents(atPath: path)
            let doctor = try run(["--db", path, "doctor"])
            #expect(doctor.status == 65, "\(doctor.stdout) \(doctor.stderr)")
            for arguments in [["get", "key1"], ["list"], ["bookmark", "list"]] {
                let result = try run(["--db", path] + arguments)
                #expect(
                    [0, 1, 65].contains(result.status),
                    "\(arguments): \(result.status) \(result.stderr)")
            }
            #expect(FileManager.default.contents(atPath: path) == before)
        }
    }

    @Test func junkWriteAheadLogIsHarmless() throws {
        let path = try sampleDatabase()
        try Data((0..<4096).map { _ in UInt8.random(in: 0...255) }).write(
            to: URL(fileURLWithPath: path + "-wal"))
        let before = FileManager.default.contents(atPath: path)
        let result = try run(["--db", path, "get", "key1"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout == String(repeating: "v1", count: 30) + "\n")
        #expect(FileManager.default.contents(atPath: path) == before)
        #expect(try run(["--db", path, "doctor"]).status == 0)
    }

    /// A header whose schema version (bytes 60-63) was damaged to an older one, or to 0: the
    /// file is refused as damaged (65), not migrated again over its own tables (70: "table
    /// setting already exists"), nor called one that needs an upgrade.
    @Test(arguments: [UInt8(3), 0])
    func aDamagedSchemaVersionIsRefusedAsDamaged(version: UInt8) throws {
        let path = try sampleDatabase()
        var bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        bytes.replaceSubrange(60..<64, with: [0, 0, 0, version])
        try bytes.write(to: URL(fileURLWithPath: path))
        try expectRefused(path, code: 65)
        let search = try run(["--db", path, "bookmark", "search", "london"])
        #expect(search.status == 65, "\(search.stderr)")
        #expect(search.stderr.contains("is not the one its migrations record"), "\(search.stderr)")
    }

    /// A schema format number (header bytes 44-47) SQLite never writes: SQLite says
    /// "unsupported file format" as a plain error, which is damage (65), not our bug (70).
    /// Found by the random copies below in CI.
    @Test(arguments: [UInt8(5), 0x39, 0xFF])
    func aDamagedSchemaFormatIsRefusedAsDamaged(format: UInt8) throws {
        let path = try sampleDatabase()
        var bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        bytes[47] = format
        try bytes.write(to: URL(fileURLWithPath: path))
        try expectRefused(path, code: 65)
    }

    @Test func randomlyCorruptedCopiesNeverCrashHangOrChange() throws {
        let original = try Data(contentsOf: URL(fileURLWithPath: try sampleDatabase()))
        let copies = Reliability.isLong ? 1_000 : 200
        var outcomes: [Int32: Int] = [:]
        for copy in 0..<copies {
            var bytes = original
            for _ in 0..<Int.random(in: 1...8) {
                bytes[Int.random(in: 0..<bytes.count)] = UInt8.random(in: 0...255)
            }
            let path = folder.path("corrupt-\(copy).sqlite")
            try bytes.write(to: URL(fileURLWithPath: path))
            let arguments = [
                ["get", "key\(copy % 60)"], ["list"], ["doctor"], ["bookmark", "search", "london"],
            ][copy % 4]
            let result = try run(["--db", path] + arguments)
            outcomes[result.status, default: 0] += 1
            #expect(
                [0, 1, 65].contains(result.status),
                "copy \(copy) \(arguments): \(result.status) \(result.stderr)")
            if result.status != 0 { #expect(result.stderr.hasPrefix("Error: ")) }
            #expect(FileManager.default.contents(atPath: path) == bytes, "copy \(copy) changed")
            try? FileManager.default.removeItem(atPath: path)
            try? FileManager.default.removeItem(atPath: path + "-wal")
            try? FileManager.default.removeItem(atPath: path + "-shm")
        }
        Reliability.report(
            "corrupted copies: \(copies), exit codes "
                + outcomes.sorted { $0.key < $1.key }.map { "\($0.key) (\($0.value))" }.joined(
                    separator: ", "))
    }
}
