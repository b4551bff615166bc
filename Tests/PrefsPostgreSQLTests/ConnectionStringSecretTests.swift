import Foundation
import PostgresCore
import PrefsKit
import PrefsPostgreSQL
import TestSupport
import Testing

/// Passwords in every spelling libpq accepts are hidden wherever prefs shows or keeps a
/// connection string: messages, doctor, sync status and the device file. The attack: a
/// spelling that a pattern of ours would miss but libpq reads as a password (or a string
/// libpq cannot parse, whose message would quote the password).
@Suite struct ConnectionStringSecretTests {
    /// Connection strings, each with a secret that must never be shown or kept.
    static let spellings: [(target: String, secret: String)] = [
        ("postgresql://alice:Pa?ss#wo/rdA@127.0.0.1:1/db", "ss#wo/rdA"),
        ("postgresql://alice@127.0.0.1:1/db?pass%77ord=SecretB", "SecretB"),
        ("postgresql://alice:Secret%43@127.0.0.1:1/db", "Secret"),
        ("host=127.0.0.1 port=1 PASSWORD=SecretD", "SecretD"),
        ("host=127.0.0.1 port=1 password = SecretE", "SecretE"),
        ("host=127.0.0.1 port=1 password='Sec ret\\'F'", "ret\\'F"),
        ("postgresql://alice@127.0.0.1:1/db?password=SecretG&sslmode=disable", "SecretG"),
        ("postgresql://alice@127.0.0.1:1/db?sslpassword=SecretH", "SecretH"),
        ("host = 127.0.0.1 port=1 password=SecretI", "SecretI"),
    ]

    @Test(arguments: spellings.map(\.target))
    func aPasswordInAnySpellingIsNeverShownOrKept(target: String) throws {
        let secret = try #require(Self.spellings.first { $0.target == target }?.secret)
        #expect(AppDatabase.isConnectionString(target))
        let shown = ConnectionString.redacted(target)
        #expect(!shown.contains(secret), "\(shown)")
        #expect(!DatabaseLocation.shown(target).contains(secret))
        let error = #expect(throws: DatabaseError.self) { try AppDatabase.postgreSQL(target) }
        let message = error.map { "\($0)" } ?? ""
        #expect(!message.contains(secret), "\(message)")
        if let kept = ConnectionString.withoutSecrets(target) {
            #expect(!kept.contains(secret), "\(kept)")
            // What is kept is reused as it was meant: the same options, less the secrets.
            let original = ConnectionString.options(target)?.filter { !$0.isSecret }
            #expect(ConnectionString.options(kept) == original)
        }
        let command = try runPrefs(["--db", target, "get", "x"])
        #expect(!command.stderr.contains(secret), "\(command.stderr)")
        #expect(command.stderr.split(separator: "\n").count <= 2)
    }

    @Test func aPasswordOnTheCommandLineIsWarnedAbout() throws {
        let result = try runPrefs([
            "--db", "host=127.0.0.1 port=1 dbname=db password=SecretJ", "get", "x",
        ])
        #expect(
            result.stderr.hasPrefix(
                "Warning: the password in the connection string is visible to every user in"
                    + " 'ps'; keep it in ~/.pgpass (or the file PGPASSFILE names) or a service"
                    + " file instead\n"))
        #expect(!result.stderr.contains("SecretJ"))
        let without = try runPrefs(["--db", "host=127.0.0.1 port=1 dbname=db", "get", "x"])
        #expect(!without.stderr.contains("Warning"))
    }

    @Test func anUnparsableStringIsAUsageErrorThatShowsNothingOfIt() throws {
        let result = try runPrefs(["--db", "postgresql://alice:SecretK@h/db?SecretK", "get", "x"])
        #expect(result.status == 64)
        #expect(
            result.stderr
                == "Error: libpq cannot parse the connection string (not shown, as it may hold a"
                + " password); check its syntax: postgresql://user@host/dbname or host=..."
                + " dbname=...\n")
    }

    @Test func theDeviceFileAndSyncStatusKeepNoPassword() throws {
        let server = try PostgresServer.start()
        let folder = try TemporaryFolder()
        let device = folder.path("device.sqlite")
        // The test server trusts local connections, so libpq never sends the password.
        let hub = server.target(database: try server.makeDatabase()) + " password=SecretL"
        #expect(try runPrefs(["--db", device, "set", "a", "1"]).status == 0)
        let synced = try runPrefs(["--db", device, "sync", "--hub", hub, "--account", "pat"])
        #expect(synced.status == 0, "\(synced.stderr)")
        #expect(!synced.stderr.contains("SecretL"))
        let status = try runPrefs(["--db", device, "sync", "status"])
        #expect(status.status == 0)
        #expect(!status.stdout.contains("SecretL") && status.stdout.contains("Hub:"))
        for file in [device, device + "-wal"] {
            let bytes = FileManager.default.contents(atPath: file) ?? Data()
            #expect(bytes.range(of: Data("SecretL".utf8)) == nil, "\(file) keeps the password")
        }
        // The remembered hub is reused as it is kept.
        #expect(try runPrefs(["--db", device, "sync"]).status == 0)
    }
}
