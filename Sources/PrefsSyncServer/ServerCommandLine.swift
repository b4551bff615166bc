import PrefsTool

/// prefs-server's command line, parsed: every flag is one the command takes, a flag given
/// twice or without its value is refused, and a number outside its range too. Values may
/// come from the environment instead (`--pool-size` from `PREFS_SERVER_POOL_SIZE`, the hub
/// from `PREFS_HUB`...); a flag wins over its variable.
package enum ServerCommandLine {
    /// What to do.
    package enum Command: Equatable {
        case help
        case serve(Serve)
        case issueToken(account: String, name: String, hub: String)
        case listTokens(account: String, hub: String, json: Bool)
        case revokeToken(id: Int64, account: String, hub: String)
    }

    /// What `serve` was told.
    package struct Serve: Equatable {
        package var address: String
        package var port: UInt16
        package var hub: String
        package var notificationHub: String?
        package var poolSize: Int
        package var connectionLimit: Int
        package var timeoutSeconds: Int
        package var headerTimeoutSeconds: Int
        package var maxBodyBytes: Int
        package var maxChanges: Int
        package var maxPollsPerToken: Int
        package var maxPullChanges: Int
        package var maxPullBytes: Int
        package var portFile: String?
        /// The file holding the service token (`--service-token-file`).
        package var serviceTokenFile: String?
    }

    /// A command line that does not parse: its message, for exit code 64.
    package struct UsageError: Error, Equatable, CustomStringConvertible {
        package var description: String
    }

    package static let usage = """
        usage: prefs-server [serve] [--listen ADDRESS:PORT] [--hub CONNECTION] [--pool-size N]
                            [--connection-limit N] [--timeout SECONDS]
                            [--header-timeout SECONDS] [--max-body BYTES]
                            [--max-changes N] [--max-polls-per-token N]
                            [--max-pull-changes N] [--max-pull-bytes BYTES]
                            [--listen-hub CONNECTION] [--port-file FILE]
                            [--service-token-file FILE]
               prefs-server token issue --account ACCOUNT --name NAME [--hub CONNECTION]
               prefs-server token list --account ACCOUNT [--hub CONNECTION] [--json]
               prefs-server token revoke ID --account ACCOUNT [--hub CONNECTION]

        The hub is a PostgreSQL connection string of a service role (a member of
        prefs_service), from --hub or PREFS_HUB. Behind PgBouncer in transaction pooling,
        --listen-hub (or PREFS_LISTEN_DB) names the server itself, for the notifications that
        wake long polls. serve listens on --listen or PREFS_SERVER_LISTEN (default
        127.0.0.1:8080; port 0 takes a free one, written to --port-file). Each number may
        come from a variable instead: --pool-size from PREFS_SERVER_POOL_SIZE, and so on.
        --service-token-file (or PREFS_SERVICE_TOKEN_FILE) names a file whose one line, 32
        characters or more, opens the calls across accounts (GET /v1/admin/onboarding).
        """

    private static let serveFlags: Set<String> = [
        "listen", "hub", "pool-size", "connection-limit", "timeout", "max-body", "max-changes",
        "max-polls-per-token", "header-timeout", "max-pull-changes", "max-pull-bytes",
        "listen-hub", "port-file", "service-token-file",
    ]

    /// Parses the arguments (without the program's name).
    package static func parse(_ arguments: [String], environment: [String: String])
        throws(UsageError) -> Command
    {
        var words = arguments[...]
        if words.contains("-h") || words.contains("--help") { return .help }
        switch words.first {
        case "token":
            words.removeFirst()
            return try token(Array(words), environment: environment)
        case "serve":
            words.removeFirst()
        case let word? where !word.hasPrefix("-"):
            throw UsageError(description: "unknown command '\(word)'; serve or token")
        default:
            break
        }
        let parsed = try Flags(Array(words), values: serveFlags, switches: [])
        if let word = parsed.words.first {
            throw UsageError(description: "serve takes no argument '\(word)'")
        }
        let listen = parsed["listen"] ?? environment["PREFS_SERVER_LISTEN"] ?? "127.0.0.1:8080"
        guard let colon = listen.lastIndex(of: ":"),
            let port = UInt16(listen[listen.index(after: colon)...])
        else {
            throw UsageError(description: "--listen takes ADDRESS:PORT, not '\(listen)'")
        }
        func number(_ name: String, _ value: Int, _ range: ClosedRange<Int>) throws(UsageError)
            -> Int
        {
            try parsed.number(name, default: value, in: range, environment: environment)
        }
        return .serve(
            Serve(
                address: String(listen[..<colon]), port: port,
                hub: try hub(parsed, environment),
                notificationHub: parsed["listen-hub"] ?? environment["PREFS_LISTEN_DB"],
                poolSize: try number("pool-size", 8, 1...1000),
                connectionLimit: try number("connection-limit", 1024, 1...100_000),
                timeoutSeconds: try number("timeout", 30, 1...3600),
                headerTimeoutSeconds: try number("header-timeout", 10, 1...3600),
                maxBodyBytes: try number("max-body", 16 << 20, 1024...(1 << 30)),
                maxChanges: try number("max-changes", 100_000, 1...10_000_000),
                maxPollsPerToken: try number("max-polls-per-token", 4, 1...1000),
                maxPullChanges: try number("max-pull-changes", 10_000, 1...1_000_000),
                maxPullBytes: try number("max-pull-bytes", 8 << 20, 1024...(1 << 30)),
                portFile: parsed["port-file"],
                serviceTokenFile: parsed["service-token-file"]
                    ?? environment["PREFS_SERVICE_TOKEN_FILE"]))
    }

    private static func token(_ arguments: [String], environment: [String: String])
        throws(UsageError) -> Command
    {
        let parsed = try Flags(arguments, values: ["account", "name", "hub"], switches: ["json"])
        guard let action = parsed.words.first else {
            throw UsageError(description: "token needs issue, list or revoke")
        }
        guard ["issue", "list", "revoke"].contains(action) else {
            throw UsageError(description: "token takes issue, list or revoke, not '\(action)'")
        }
        guard let account = parsed["account"] else {
            throw UsageError(description: "name the account: --account")
        }
        // What each action takes is checked before the hub is reached.
        if parsed["name"] != nil, action != "issue" {
            throw UsageError(description: "--name is for token issue")
        }
        if parsed.switches.contains("json"), action != "list" {
            throw UsageError(description: "--json is for token list")
        }
        switch action {
        case "issue":
            guard let name = parsed["name"] else {
                throw UsageError(description: "name the device: --name")
            }
            guard parsed.words.count == 1 else {
                throw UsageError(description: "token issue takes no argument '\(parsed.words[1])'")
            }
            return .issueToken(account: account, name: name, hub: try hub(parsed, environment))
        case "list":
            guard parsed.words.count == 1 else {
                throw UsageError(description: "token list takes no argument '\(parsed.words[1])'")
            }
            return .listTokens(
                account: account, hub: try hub(parsed, environment),
                json: parsed.switches.contains("json"))
        default:
            guard parsed.words.count == 2, let id = Int64(parsed.words[1]) else {
                throw UsageError(
                    description: "token revoke takes the token's id (token list shows it)")
            }
            return .revokeToken(id: id, account: account, hub: try hub(parsed, environment))
        }
    }

    private static func hub(_ parsed: Flags, _ environment: [String: String]) throws(UsageError)
        -> String
    {
        guard let hub = parsed["hub"] ?? environment["PREFS_HUB"] else {
            throw UsageError(description: "name the hub: --hub CONNECTION or PREFS_HUB")
        }
        return hub
    }

    /// The flags given (`--name value`, `--name=value`), the switches, and the words that
    /// are no flag.
    private struct Flags {
        var values: [String: String] = [:]
        var switches: Set<String> = []
        var words: [String] = []

        init(_ arguments: [String], values known: Set<String>, switches: Set<String>)
            throws(UsageError)
        {
            var rest = arguments[...]
            while let argument = rest.popFirst() {
                guard argument.hasPrefix("--"), argument.count > 2 else {
                    if argument.hasPrefix("-"), argument != "-" {
                        throw UsageError(description: "unknown option '\(argument)'")
                    }
                    words.append(argument)
                    continue
                }
                var name = String(argument.dropFirst(2))
                var value: String?
                if let equals = name.firstIndex(of: "=") {
                    value = String(name[name.index(after: equals)...])
                    name = String(name[..<equals])
                }
                if switches.contains(name), value == nil {
                    self.switches.insert(name)
                    continue
                }
                guard known.contains(name) else {
                    throw UsageError(description: "unknown option '--\(name)'")
                }
                guard let given = value ?? rest.popFirst() else {
                    throw UsageError(description: "--\(name) needs a value")
                }
                guard self.values[name] == nil else {
                    throw UsageError(description: "--\(name) is given twice")
                }
                self.values[name] = given
            }
        }

        subscript(name: String) -> String? { values[name] }

        /// A flag's number, else its variable's (`--pool-size`: `PREFS_SERVER_POOL_SIZE`).
        func number(
            _ name: String, default value: Int, in range: ClosedRange<Int>,
            environment: [String: String]
        ) throws(UsageError) -> Int {
            let variable = "PREFS_SERVER_" + String(name.uppercased().map { $0 == "-" ? "_" : $0 })
            guard let text = values[name] ?? environment[variable] else { return value }
            guard let number = Int(text), range.contains(number) else {
                throw UsageError(
                    description:
                        "--\(name) must be a number from \(range.lowerBound) to \(range.upperBound)"
                )
            }
            return number
        }
    }
}
