internal import PostgresCore
import PrefsKit

#if canImport(FoundationEssentials) && !PREFS_FULL_FOUNDATION
    import FoundationEssentials
#else
    import Foundation
#endif

/// A device token as the hub keeps it: never the token itself, only its SHA-256.
public struct DeviceToken: Sendable, Hashable {
    /// The number `revoke` takes.
    public var id: Int64
    /// The one account the token opens.
    public var account: String
    /// The device's name as given when the token was issued ("Anna's iPhone").
    public var name: String
    /// When it was issued.
    public var issuedAt: Date
    /// When it was revoked; nil while it opens the account.
    public var revokedAt: Date?
}

/// The tokens with which devices sync through `prefs-server` (docs/sync-protocol.md): a
/// device holds one and no PostgreSQL role. A token opens exactly one account; it is shown
/// once, when issued, and the hub keeps only its SHA-256; revoking one takes effect at the
/// next request.
///
/// A server app issues tokens from its own sign-in flow, on a database a service role
/// opened for the account:
///
/// ```swift
/// var options = PostgreSQLOptions()
/// options.account = "alice"
/// let hub = try AppDatabase.postgreSQL("postgresql:///prefs?user=app", options: options)
/// let issued = try DeviceTokens.issue(on: hub, name: "Anna's iPhone")
/// // Hand `issued.token` to the device, over the app's own secure channel.
/// ```
public enum DeviceTokens {
    /// What ``issue(on:name:)`` made: the token, to hand to the device once, and its record.
    public struct Issued: Sendable {
        /// The token: `prefs_` and 43 characters of base64url (256 random bits).
        public var token: String
        /// What the hub keeps of it: its number, account, name and time.
        public var record: DeviceToken
    }

    /// Issues a token that opens the database's account.
    ///
    /// - Throws: ``PrefsKit/DatabaseError/invalidConnectionOption(path:detail:)`` for a name
    ///   that is not 1 to 64 code points without control characters;
    ///   ``PrefsKit/DatabaseError/permissionDenied(path:detail:)`` for a role that is not a
    ///   service role; ``PrefsKit/DatabaseError/unsupported(_:)`` for a database that is not
    ///   on a server.
    public static func issue(on database: AppDatabase, name: String) throws -> Issued {
        guard (1...64).contains(name.unicodeScalars.count),
            !name.unicodeScalars.contains(where: { $0.properties.generalCategory == .control })
        else {
            throw DatabaseError.invalidConnectionOption(
                path: database.path,
                detail: "a token's name must be 1 to 64 characters without control characters")
        }
        let token = newToken()
        let hash = PGValue.hex(SHA256.digest(Array(token.utf8)))
        let record = try withEngine(database) { engine in
            let result = try engine.connection.execute(
                """
                INSERT INTO prefs_device_token (account, name, hash) VALUES ($1, $2, $3::bytea)
                RETURNING id, extract(epoch FROM issued_at)
                """, [engine.account, name, hash])
            return DeviceToken(
                id: result.integer(row: 0, column: 0) ?? 0, account: engine.account, name: name,
                issuedAt: Date(timeIntervalSince1970: result.double(row: 0, column: 1) ?? 0))
        }
        return Issued(token: token, record: record)
    }

    /// The account's tokens, revoked ones included, oldest first.
    public static func list(on database: AppDatabase) throws -> [DeviceToken] {
        try withEngine(database) { engine in
            let result = try engine.connection.execute(
                """
                SELECT id, name, extract(epoch FROM issued_at), extract(epoch FROM revoked_at)
                FROM prefs_device_token WHERE account = $1 ORDER BY id
                """, [engine.account])
            return (0..<result.rowCount).map { row in
                DeviceToken(
                    id: result.integer(row: row, column: 0) ?? 0, account: engine.account,
                    name: result.text(row: row, column: 1) ?? "",
                    issuedAt: Date(timeIntervalSince1970: result.double(row: row, column: 2) ?? 0),
                    revokedAt: result.double(row: row, column: 3).map {
                        Date(timeIntervalSince1970: $0)
                    })
            }
        }
    }

    /// Revokes one of the account's tokens: the next request with it is refused.
    ///
    /// - Returns: Whether a token of the account with that id was open until now.
    @discardableResult
    public static func revoke(id: Int64, on database: AppDatabase) throws -> Bool {
        try withEngine(database) { engine in
            try engine.connection.execute(
                """
                UPDATE prefs_device_token SET revoked_at = now()
                WHERE account = $1 AND id = $2 AND revoked_at IS NULL
                """, [engine.account, String(id)]
            ).affectedRows == 1
        }
    }

    /// The account a token opens; nil for a token the hub does not know or that was
    /// revoked. Read on a connection of a service role.
    static func account(forToken token: String, on connection: PGConnection) throws -> String? {
        guard isWellFormed(token) else { return nil }
        let hash = PGValue.hex(SHA256.digest(Array(token.utf8)))
        let result = try connection.execute(
            prepared: "token_account",
            "SELECT account FROM prefs_device_token WHERE hash = $1::bytea AND revoked_at IS NULL",
            [hash])
        return result.rowCount == 1 ? result.text(row: 0, column: 0) : nil
    }

    /// `prefs_` and 43 characters of base64url.
    static func isWellFormed(_ token: String) -> Bool {
        let bytes = Array(token.utf8)
        guard bytes.count == 49, bytes.starts(with: Array("prefs_".utf8)) else { return false }
        return bytes.dropFirst(6).allSatisfy { byte in
            (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte)
                || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
                || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
                || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_")
        }
    }

    private static func newToken() -> String {
        var generator = SystemRandomNumberGenerator()
        let random = (0..<32).map { _ in UInt8.random(in: 0...255, using: &generator) }
        let text = Data(random).base64EncodedString().compactMap { character -> Character? in
            switch character {
            case "+": "-"
            case "/": "_"
            case "=": nil
            default: character
            }
        }
        return "prefs_" + String(text)
    }

    /// Runs the body on the database's PostgreSQL engine, in a transaction, with the
    /// engine's errors in their documented form.
    private static func withEngine<T>(
        _ database: AppDatabase, _ body: (PostgreSQLEngine) throws -> T
    ) throws -> T {
        try database.withEngine { engine in
            guard let engine = engine as? PostgreSQLEngine else {
                throw DatabaseError.unsupported(
                    "device tokens are kept by a PostgreSQL hub, not by a file")
            }
            return try engine.transaction { try body(engine) }
        }
    }
}
