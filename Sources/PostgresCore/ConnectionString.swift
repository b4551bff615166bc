internal import CLibPQ

/// A libpq connection string as libpq itself reads it (`PQconninfoParse`): what it calls a
/// password is found in every spelling it accepts (a URI's user part with unencoded `?`,
/// `#` or `/`, `pass%77ord=` in a URI's query, upper-case keywords, spaces around `=`,
/// quoted values), because libpq decides, not a pattern of ours.
package enum ConnectionString {
    /// One option that the string sets.
    package struct Option: Sendable, Equatable {
        /// libpq's keyword (`host`, `dbname`, `password`...).
        package let keyword: String
        /// The value, decoded.
        package let value: String
        /// Whether libpq treats it as a secret (its display character is `*`): the
        /// password and the SSL key's password.
        package let isSecret: Bool
    }

    /// The options the string sets, in libpq's order; nil when libpq cannot parse it (or
    /// cannot be loaded: ``LibPQ/loadFailure``).
    package static func options(_ target: String) -> [Option]? {
        guard LibPQ.loadFailure == nil else { return nil }
        var message: UnsafeMutablePointer<CChar>?
        guard let parsed = PQconninfoParse(target, &message) else {
            if let message { PQfreemem(message) }
            return nil
        }
        defer { PQconninfoFree(parsed) }
        var options: [Option] = []
        var cursor = parsed
        while let keyword = cursor.pointee.keyword {
            if let value = cursor.pointee.val {
                let display = cursor.pointee.dispchar.map { String(cString: $0) } ?? ""
                options.append(
                    Option(
                        keyword: String(cString: keyword), value: String(cString: value),
                        isSecret: display.hasPrefix("*")))
            }
            cursor += 1
        }
        return options
    }

    /// Whether the string holds a secret libpq would read (a password).
    package static func hasSecret(_ target: String) -> Bool {
        options(target)?.contains { $0.isSecret && !$0.value.isEmpty } ?? false
    }

    /// The string for messages: libpq's options as `keyword=value` pairs, secrets as
    /// `***`. A string libpq cannot parse is not shown at all (it may hold a secret in a
    /// spelling nobody can tell).
    package static func redacted(_ target: String) -> String {
        guard let options = options(target) else {
            return LibPQ.loadFailure == nil
                ? "(a connection string that libpq cannot parse)"
                : "(a PostgreSQL connection string)"
        }
        return options.map { "\($0.keyword)=\($0.isSecret ? "***" : quoted($0.value))" }
            .joined(separator: " ")
    }

    /// The string to remember: libpq's options as `keyword=value` pairs without the
    /// secrets (the password then comes from `.pgpass`, `PGPASSFILE` or a service file);
    /// nil when libpq cannot parse it.
    package static func withoutSecrets(_ target: String) -> String? {
        options(target).map { options in
            options.filter { !$0.isSecret }.map { "\($0.keyword)=\(quoted($0.value))" }
                .joined(separator: " ")
        }
    }

    /// A value as libpq's `keyword=value` syntax takes it: bare when it can be, else in
    /// single quotes with `\` and `'` escaped.
    static func quoted(_ value: String) -> String {
        let isBare =
            !value.isEmpty
            && !value.contains { $0 == " " || $0 == "'" || $0 == "\\" || $0.isWhitespace }
        if isBare { return value }
        var result = "'"
        for character in value {
            if character == "'" || character == "\\" { result.append("\\") }
            result.append(character)
        }
        return result + "'"
    }
}
