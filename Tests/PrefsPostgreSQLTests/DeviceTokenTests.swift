import Foundation
import PrefsKit
import PrefsPostgreSQL
import PrefsTestSupport
import TestSupport
import Testing

@testable import PrefsPostgreSQL

/// Device tokens: kept as SHA-256 only, one account each, issued only by a service role.
@Suite struct DeviceTokenTests {
    @Test func sha256MatchesTheStandardsVectors() {
        func hex(_ bytes: [UInt8]) -> String {
            bytes.map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()
        }
        #expect(
            hex(SHA256.digest([]))
                == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        #expect(
            hex(SHA256.digest(Array("abc".utf8)))
                == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(
            hex(
                SHA256.digest(
                    Array("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq".utf8)))
                == "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
        #expect(
            hex(SHA256.digest([UInt8](repeating: UInt8(ascii: "a"), count: 1_000_000)))
                == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
    }

    @Test func sha256MatchesPostgreSQLsOwnAtEveryLength() throws {
        let server = try PostgresServer.start()
        var generator = SeededGenerator(seed: 47)
        for length in [0, 1, 55, 56, 57, 63, 64, 65, 119, 120, 200, 1000] {
            let bytes = (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) }
            let hexInput = bytes.map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()
            let theirs = try server.psql("SELECT encode(sha256('\\x\(hexInput)'::bytea), 'hex')")
            let ours = SHA256.digest(bytes).map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }
                .joined()
            #expect(theirs.stdout.contains(ours), "length \(length)")
        }
    }

    @Test func aTokenIsKeptOnlyAsItsHashAndAnAccountRoleCannotReadOrIssueThem() throws {
        let server = try PostgresServer.start()
        let database = try server.makePrefsDatabase(roles: [
            ("tok_service", "prefs_service"), ("mallory", "prefs_account"),
        ])
        let hub = try server.open(database, as: "tok_service", account: "alice")
        let issued = try DeviceTokens.issue(on: hub, name: "Anna's iPhone")
        #expect(DeviceTokens.isWellFormed(issued.token))
        #expect(issued.record.account == "alice")
        let stored = try server.psql(
            "SELECT encode(hash, 'hex'), name FROM prefs_device_token", database: database)
        #expect(!stored.stdout.contains(issued.token))
        #expect(!stored.stdout.contains(String(issued.token.dropFirst(6))))
        // An account's own role can neither read the hashes nor issue a token.
        let read = try server.psql(
            "SELECT count(*) FROM prefs_device_token", database: database, user: "mallory")
        #expect(read.status != 0)
        #expect(read.stderr.contains("permission denied"), "\(read.stderr)")
        let mallory = try server.open(database, as: "mallory")
        #expect(throws: DatabaseError.self) {
            try DeviceTokens.issue(on: mallory, name: "forged")
        }
        // A name with a control character is refused; another account's token cannot be
        // revoked from this one.
        #expect(throws: DatabaseError.self) { try DeviceTokens.issue(on: hub, name: "a\u{7}") }
        let bob = try server.open(database, as: "tok_service", account: "bob")
        #expect(try DeviceTokens.revoke(id: issued.record.id, on: bob) == false)
        #expect(try DeviceTokens.list(on: bob).isEmpty)
        #expect(try DeviceTokens.list(on: hub).map(\.revokedAt) == [nil])
        // A file holds no tokens. (The folder is kept until the file is done with: dropped
        // at once, it was removed and then made again by the open, and left behind.)
        let folder = try TemporaryFolder()
        let file = try AppDatabase(path: folder.path("device.db"))
        #expect(throws: DatabaseError.self) { try DeviceTokens.issue(on: file, name: "x") }
        withExtendedLifetime(folder) {}
    }
}
