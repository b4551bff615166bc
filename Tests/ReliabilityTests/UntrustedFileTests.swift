import Foundation
import SQLiteCore
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Files that another local user controls, and paths that are not plain files. Each test is
/// an attack: a database or companion file planted in a shared folder, a FIFO or a device
/// in the database's place, a path that would make folders. Each ends in one line, the
/// documented exit code, nothing read from or written to the planted file, and no hang.
@Suite struct UntrustedFileTests {
    let folder: TemporaryFolder
    let db: String

    /// The user id the attacker's files belong to (`nobody`).
    static let attacker: uid_t = 65534

    init() throws {
        folder = try TemporaryFolder()
        db = folder.path("prefs.sqlite")
    }

    /// Runs prefs with a time limit, so that a hang fails instead of stalling the suite.
    func run(_ arguments: [String], environment: [String: String] = [:]) throws -> ProcessOutput {
        let result = try Reliability.shell(
            "timeout -s KILL 20 \"$PREFS\" \(arguments.map { "'\($0)'" }.joined(separator: " "))",
            environment: environment)
        #expect(result.status < 128, "\(arguments) died or hung: \(result.status)")
        return result
    }

    /// Every command kind refuses the path with `code` and the one line `message`, and the
    /// files are left byte for byte.
    func expectRefused(
        _ path: String, code: Int32, message: String, files: [String] = [],
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let before = files.map { FileManager.default.contents(atPath: $0) }
        for arguments in [
            ["get", "secret"], ["list"], ["set", "secret", "hunter2"], ["doctor"],
            ["doctor", "--repair"], ["bookmark", "list"], ["selection", "list"],
        ] {
            let result = try run(["--db", path] + arguments)
            #expect(
                result.status == code, "\(arguments): \(result.stderr)",
                sourceLocation: sourceLocation)
            #expect(
                result.stderr == "Error: \(message)\n", "\(arguments)",
                sourceLocation: sourceLocation)
            #expect(result.stdout == "", "\(arguments)", sourceLocation: sourceLocation)
        }
        #expect(
            files.map { FileManager.default.contents(atPath: $0) } == before,
            sourceLocation: sourceLocation)
    }

    func untrusted(_ file: String, _ reason: String) -> String {
        "Refusing to open '\(db)': '\(file)' is not safe, \(reason); if the file is shared on"
            + " purpose, pass --allow-shared or set PREFS_ALLOW_SHARED=1"
    }

    /// A database with one value in it, checkpointed.
    func makeDatabase() throws {
        #expect(try runPrefs(["--db", db, "set", "secret", "mine"]).status == 0)
        let connection = try Connection(path: db)
        try connection.execute(sql: "PRAGMA wal_checkpoint(TRUNCATE)")
    }

    @Test func writeAheadLogPlantedByAnotherUserIsRefusedForReadingToo() throws {
        guard geteuid() == 0 else {
            Reliability.report("skipped: needs root to give a file to another user")
            return
        }
        try makeDatabase()
        // The attacker's WAL would show their values to the victim's reads.
        let wal = db + "-wal"
        try Data("not a real log".utf8).write(to: URL(fileURLWithPath: wal))
        #expect(chown(wal, Self.attacker, Self.attacker) == 0)
        try expectRefused(
            db, code: 77,
            message: untrusted(wal, "it belongs to user id \(Self.attacker), not to this user (0)"),
            files: [db, wal])
    }

    @Test func databaseOwnedByAnotherUserIsRefused() throws {
        guard geteuid() == 0 else {
            Reliability.report("skipped: needs root to give a file to another user")
            return
        }
        try makeDatabase()
        #expect(chown(db, Self.attacker, Self.attacker) == 0)
        try expectRefused(
            db, code: 77,
            message: untrusted(db, "it belongs to user id \(Self.attacker), not to this user (0)"),
            files: [db])
    }

    /// A folder that flips between ours and another user's (a link swapped with `mv -T`
    /// while prefs writes through it 150 times, as root): the other user's file is never
    /// written (before the fix, 2 runs in 3 wrote it).
    /// The file is checked on the path SQLite opens, with the folders' links resolved first
    /// and none followed after, so a flip between the check and the open finds nothing.
    @Test func aFolderThatFlipsBetweenOursAndAnotherUsersNeverGetsTheOtherFileWritten() throws {
        guard geteuid() == 0 else {
            Reliability.report("skipped: needs root to give a file to another user")
            return
        }
        let ours = folder.path("ours")
        let theirs = folder.path("theirs")
        let link = folder.path("dir")
        #expect(mkdir(ours, 0o700) == 0 && mkdir(theirs, 0o755) == 0)
        #expect(try runPrefs(["--db", ours + "/prefs.db", "set", "k", "ours"]).status == 0)
        #expect(try runPrefs(["--db", theirs + "/prefs.db", "set", "k", "theirs"]).status == 0)
        for file in try FileManager.default.contentsOfDirectory(atPath: theirs) {
            #expect(chown(theirs + "/" + file, Self.attacker, Self.attacker) == 0)
        }
        #expect(chown(theirs, Self.attacker, Self.attacker) == 0)
        #expect(symlink(ours, link) == 0)
        let flipper = try ChildProcess(
            "/bin/sh",
            [
                "-c",
                "while :; do ln -sfn '\(theirs)' '\(link).new' && mv -T '\(link).new' '\(link)';"
                    + " ln -sfn '\(ours)' '\(link).new' && mv -T '\(link).new' '\(link)'; done",
            ])
        var statuses: Set<Int32> = []
        for index in 0..<150 {
            statuses.insert(
                try runPrefs(["--db", link + "/prefs.db", "set", "k", "x\(index)"]).status)
        }
        // Ours written, theirs refused (77), and nothing else.
        #expect(statuses.isSubset(of: [0, 77]), "\(statuses)")
        flipper.send(SIGKILL)
        _ = flipper.wait()
        for file in try FileManager.default.contentsOfDirectory(atPath: theirs) {
            let bytes = try Data(contentsOf: URL(fileURLWithPath: theirs + "/" + file))
            let written = (0..<150).filter { bytes.range(of: Data("x\($0)".utf8)) != nil }
            #expect(written.isEmpty, "\(file) holds \(written)")
            var status = stat()
            #expect(lstat(theirs + "/" + file, &status) == 0 && status.st_uid == Self.attacker)
        }
    }

    @Test(arguments: [0o666, 0o620, 0o602])
    func databaseOthersMayWriteIsRefused(mode: Int) throws {
        try makeDatabase()
        #expect(chmod(db, mode_t(mode)) == 0)
        let shown = String(mode, radix: 8)
        try expectRefused(
            db, code: 77,
            message: untrusted(db, "other users may write it (mode \(shown)); chmod go-w it"),
            files: [db])
    }

    @Test func companionPlantedBeforeTheDatabaseExistsIsRefusedAndNothingIsCreated() throws {
        // In a shared folder, the attacker prepares a world-writable journal before the victim's
        // first write: SQLite would open it as the database's own.
        let journal = db + "-journal"
        #expect(FileManager.default.createFile(atPath: journal, contents: Data()))
        #expect(chmod(journal, 0o666) == 0)
        let result = try run(["--db", db, "set", "secret", "hunter2"])
        #expect(result.status == 77)
        #expect(
            result.stderr
                == "Error: \(untrusted(journal, "other users may write it (mode 666); chmod go-w it"))\n"
        )
        #expect(!FileManager.default.fileExists(atPath: db))
    }

    @Test func symbolicLinkAsTheWriteAheadLogIsRefused() throws {
        try makeDatabase()
        let target = folder.path("elsewhere")
        #expect(FileManager.default.createFile(atPath: target, contents: Data("x".utf8)))
        try FileManager.default.createSymbolicLink(atPath: db + "-wal", withDestinationPath: target)
        try expectRefused(
            db, code: 66, message: "'\(db)-wal' is a symbolic link, not a prefs database",
            files: [db, target])
    }

    @Test func sharingOnPurposeOpensButIsNeverHealthy() throws {
        try makeDatabase()
        #expect(chmod(db, 0o664) == 0)
        let read = try run(["--allow-shared", "--db", db, "get", "secret"])
        #expect(read.status == 0 && read.stdout == "mine\n", "\(read.stderr)")
        let byVariable = try run(
            ["--db", db, "get", "secret"], environment: ["PREFS_ALLOW_SHARED": "1"])
        #expect(byVariable.status == 0 && byVariable.stdout == "mine\n", "\(byVariable.stderr)")
        let doctor = try run(["--allow-shared", "--db", db, "--json", "doctor"])
        #expect(doctor.status == 77)
        #expect(
            doctor.stdout.contains("\"healthy\" : false")
                || doctor.stdout.contains("\"healthy\": false"))
        #expect(doctor.stdout.contains(db))
    }

    @Test func fifoAsTheDatabaseIsRefusedWithoutHanging() throws {
        #expect(mkfifo(db, 0o600) == 0)
        try expectRefused(db, code: 66, message: "'\(db)' is a FIFO, not a prefs database")
    }

    @Test func fifoAsTheWriteAheadLogIsRefusedWithoutHanging() throws {
        try makeDatabase()
        #expect(mkfifo(db + "-wal", 0o600) == 0)
        try expectRefused(
            db, code: 66, message: "'\(db)-wal' is a FIFO, not a prefs database", files: [db])
    }

    @Test(arguments: ["/dev/zero", "/dev/null"])
    func deviceAsTheDatabaseIsRefusedAndLeavesNoJournal(device: String) throws {
        for arguments in [["get", "secret"], ["list"], ["doctor"], ["doctor", "--repair"]] {
            let result = try run(["--db", device] + arguments)
            #expect(result.status == 66, "\(arguments): \(result.stderr)")
            #expect(
                result.stderr == "Error: '\(device)' is a character device, not a prefs database\n")
        }
        #expect(!FileManager.default.fileExists(atPath: device + "-journal"))
        #expect(!FileManager.default.fileExists(atPath: device + "-wal"))
    }

    @Test func socketAsTheDatabaseIsRefused() throws {
        let socketPath = folder.path("s.sock")
        let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        #expect(descriptor >= 0)
        defer { close(descriptor) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (index, byte) in socketPath.utf8.enumerated() where index < raw.count - 1 {
                raw[index] = byte
            }
        }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        #expect(bound == 0)
        let result = try run(["--db", socketPath, "get", "secret"])
        #expect(result.status == 66)
        #expect(result.stderr == "Error: '\(socketPath)' is a socket, not a prefs database\n")
    }

    @Test func folderThatCannotBeEnteredIsAnAccessErrorNotNoValue() throws {
        guard geteuid() == 0 else {
            Reliability.report("skipped: needs root to run as nobody (root enters any folder)")
            return
        }
        let closed = folder.path("closed")
        try FileManager.default.createDirectory(atPath: closed, withIntermediateDirectories: true)
        let path = closed + "/prefs.sqlite"
        #expect(try runPrefs(["--db", path, "set", "secret", "mine"]).status == 0)
        #expect(chmod(folder.url.path, 0o755) == 0 && chmod(closed, 0o700) == 0)
        let result = try Reliability.shell(
            "setpriv --reuid=nobody --regid=nogroup --clear-groups \"$PREFS\" --db '\(path)' get secret"
        )
        #expect(result.status == 66, "\(result.stderr)")
        #expect(
            result.stderr
                == "Error: Permission denied reading '\(path)' or a folder on its path\n")
    }

    /// Creating in a folder this user may enter but not write stays "cannot create" (73),
    /// not the access error of a folder that cannot be entered.
    @Test func creatingInAFolderThatCannotBeWrittenIs73() throws {
        guard geteuid() == 0 else {
            Reliability.report("skipped: needs root to run as nobody (root writes any folder)")
            return
        }
        let locked = folder.path("locked")
        try FileManager.default.createDirectory(atPath: locked, withIntermediateDirectories: true)
        #expect(chmod(folder.url.path, 0o755) == 0 && chmod(locked, 0o555) == 0)
        let path = locked + "/prefs.sqlite"
        let result = try Reliability.shell(
            "setpriv --reuid=nobody --regid=nogroup --clear-groups \"$PREFS\" --db '\(path)' set a 1"
        )
        #expect(result.status == 73, "\(result.stderr)")
        #expect(result.stderr == "Error: Cannot create '\(path)': Permission denied\n")
    }

    @Test func explicitPathInAMissingFolderIsNotCreated() throws {
        let path = folder.path("typo/nested/prefs.sqlite")
        let result = try run(["--db", path, "set", "secret", "mine"])
        #expect(result.status == 66)
        #expect(result.stderr == "Error: The folder of '\(path)' does not exist; create it first\n")
        #expect(!FileManager.default.fileExists(atPath: folder.path("typo")))
        let byVariable = try run(["set", "secret", "mine"], environment: ["PREFS_DB": path])
        #expect(byVariable.status == 66)
        #expect(!FileManager.default.fileExists(atPath: folder.path("typo")))
    }

    @Test func defaultLocationMakesItsFoldersPrivate() throws {
        let dataHome = folder.path("data")
        let result = try run(
            ["set", "secret", "mine"], environment: ["PREFS_DB": "", "XDG_DATA_HOME": dataHome])
        #expect(result.status == 0, "\(result.stderr)")
        var status = stat()
        #expect(stat(dataHome + "/prefs", &status) == 0 && status.st_mode & 0o777 == 0o700)
        // The command line's own app, 'prefs', has its folder in the data folder.
        #expect(stat(dataHome + "/prefs/prefs", &status) == 0 && status.st_mode & 0o777 == 0o700)
        #expect(
            stat(dataHome + "/prefs/prefs/prefs.sqlite", &status) == 0
                && status.st_mode & 0o777 == 0o600)
    }
}
