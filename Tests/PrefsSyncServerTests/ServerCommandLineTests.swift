import Testing

@testable import PrefsSyncServer

/// prefs-server's flags: what each means, and every mistake refused with one line.
@Suite struct ServerCommandLineTests {
    private let hub = ["PREFS_HUB": "dbname=prefs"]

    private func parse(_ arguments: [String], _ environment: [String: String] = [:])
        throws(ServerCommandLine.UsageError) -> ServerCommandLine.Command
    {
        try ServerCommandLine.parse(arguments, environment: environment)
    }

    @Test func serveTakesItsFlagsAndTheirVariables() throws {
        guard
            case .serve(let serve) = try parse(
                ["serve", "--listen", "[::1]:0", "--pool-size=3", "--port-file", "p"],
                hub.merging(["PREFS_SERVER_MAX_CHANGES": "50"]) { $1 })
        else {
            Issue.record("not serve")
            return
        }
        #expect(serve.address == "[::1]" && serve.port == 0)
        #expect(serve.poolSize == 3 && serve.maxChanges == 50 && serve.connectionLimit == 1024)
        #expect(serve.hub == "dbname=prefs" && serve.portFile == "p")
        // serve is the default command; a flag wins over its variable.
        guard case .serve(let flagged) = try parse(["--hub", "dbname=other"], hub) else {
            Issue.record("not serve")
            return
        }
        #expect(flagged.hub == "dbname=other" && flagged.address == "127.0.0.1")
    }

    @Test func anUnknownFlagATypoOrAFlagGivenTwiceIsRefused() {
        let mistakes: [[String]] = [
            ["--pool-sise", "3"],
            ["--listen"],
            ["--pool-size", "3", "--pool-size", "4"],
            ["--pool-size", "0"],
            ["--timeout", "soon"],
            ["--listen", "nowhere"],
            ["-v"],
            ["serve", "extra"],
            ["launch"],
            ["token", "issue", "--account", "a"],
            ["token", "list", "--account", "a", "--name", "x"],
            ["token", "issue", "--account", "a", "--name", "n", "--json"],
            ["token", "revoke", "x", "--account", "a"],
            ["token", "shred", "--account", "a"],
            ["token", "list"],
        ]
        for arguments in mistakes {
            #expect(throws: ServerCommandLine.UsageError.self, "\(arguments)") {
                try parse(arguments, hub)
            }
        }
        #expect(throws: ServerCommandLine.UsageError.self) { try parse(["serve"]) }
    }

    @Test func theTokenCommandsSayWhatToDo() throws {
        #expect(
            try parse(["token", "issue", "--account", "alice", "--name", "Anna's iPhone"], hub)
                == .issueToken(account: "alice", name: "Anna's iPhone", hub: "dbname=prefs"))
        #expect(
            try parse(["token", "list", "--account", "alice", "--json"], hub)
                == .listTokens(account: "alice", hub: "dbname=prefs", json: true))
        #expect(
            try parse(["token", "revoke", "3", "--account", "alice", "--hub", "dbname=x"])
                == .revokeToken(id: 3, account: "alice", hub: "dbname=x"))
        #expect(try parse(["token", "--help"]) == .help)
    }

    /// The operator is told of a password where `ps` shows it, of plain HTTP off this
    /// machine, and of running as root; a hub in PREFS_HUB, a loopback address and another
    /// user draw nothing.
    @Test func theOperatorIsWarnedOfAPasswordInPsPlainHTTPOffLoopbackAndRoot() {
        func warnings(_ arguments: [String], _ address: String? = "127.0.0.1", uid: UInt32 = 1000)
            -> [String]
        {
            ServerWarnings.of(arguments, listeningOn: address, effectiveUserID: uid)
        }
        #expect(warnings(["--hub", "dbname=prefs"]).isEmpty)
        #expect(warnings([]).isEmpty)
        for arguments in [
            ["--hub", "dbname=prefs password=secret"],
            ["--hub=postgresql://sync:secret@db/prefs"],
            ["token", "list", "--account", "a", "--hub", "host=db password='s e'"],
            ["--hub", "dbname=prefs", "--listen-hub", "postgresql://u:pw@db:5432/prefs"],
        ] {
            let said = warnings(arguments)
            #expect(said.count == 1, "\(arguments): \(said)")
            #expect(said.first?.contains("password in --") == true, "\(said)")
            #expect(said.first?.contains("secret") == false, "\(said)")
        }
        for address in ["127.0.0.1", "127.1.2.3", "[::1]", "localhost"] {
            #expect(warnings([], address).isEmpty, "\(address)")
        }
        for address in ["0.0.0.0", "[::]", "192.168.1.5", "sync.example"] {
            #expect(warnings([], address).first?.contains("plain HTTP") == true, "\(address)")
        }
        #expect(warnings([], nil, uid: 0) == warnings([], uid: 0))
        #expect(warnings([], uid: 0).first?.contains("running as root") == true)
    }
}
