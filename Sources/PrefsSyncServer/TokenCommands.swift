import PrefsKit
import PrefsPostgreSQL

#if canImport(FoundationEssentials) && !PREFS_FULL_FOUNDATION
    import FoundationEssentials
#else
    import Foundation
#endif

/// `prefs-server token issue|list|revoke`: device tokens of one account, on the hub.
package enum TokenCommands {
    /// What a command prints: on standard output, and a note on standard error.
    package struct Output: Equatable {
        package var standardOutput = ""
        package var standardError = ""
    }

    /// The account's hub, as its service role opens it.
    private static func hub(_ target: String, account: String) throws -> AppDatabase {
        var options = PostgreSQLOptions()
        options.account = account
        options.watchesForChanges = false
        return try AppDatabase.postgreSQL(target, options: options)
    }

    /// Issues a token and prints it once.
    package static func issue(account: String, name: String, hub target: String) throws -> Output {
        let issued = try DeviceTokens.issue(on: hub(target, account: account), name: name)
        return Output(
            standardOutput: issued.token + "\n",
            standardError: "Token \(issued.record.id) opens the account '\(account)' for"
                + " '\(name)'. It is shown once: the hub keeps only its hash.\n")
    }

    /// Lists the account's tokens: id, open or revoked, name; or as JSON.
    package static func list(account: String, hub target: String, json: Bool) throws -> Output {
        let tokens = try DeviceTokens.list(on: hub(target, account: account))
        guard json else {
            return Output(
                standardOutput: tokens.map {
                    "\($0.id)\t\($0.revokedAt == nil ? "open" : "revoked")\t\($0.name)\n"
                }.joined())
        }
        let rows = tokens.map { token -> String in
            let revoked = token.revokedAt.map { "\(Int64($0.timeIntervalSince1970))" } ?? "null"
            return "{\"id\":\(token.id),\"name\":\(jsonString(token.name)),"
                + "\"issued\":\(Int64(token.issuedAt.timeIntervalSince1970)),"
                + "\"revoked\":\(revoked)}"
        }
        return Output(standardOutput: "[" + rows.joined(separator: ",") + "]\n")
    }

    /// Revokes a token; nil when the account has no open token of that id.
    package static func revoke(id: Int64, account: String, hub target: String) throws -> Output? {
        guard try DeviceTokens.revoke(id: id, on: hub(target, account: account)) else {
            return nil
        }
        return Output(standardOutput: "Revoked token \(id).\n")
    }

    private static func jsonString(_ text: String) -> String {
        let encoded = (try? JSONEncoder().encode(text)).map { String(decoding: $0, as: UTF8.self) }
        return encoded ?? "\"\""
    }
}
