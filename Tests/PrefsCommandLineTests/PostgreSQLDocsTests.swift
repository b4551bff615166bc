import Foundation
import TestSupport
import Testing

/// The system user the documents' lines run as: `nobody`, with a home of the test's.
enum Newcomer {
    static let uid: uid_t = 65534
    static let gid: gid_t = 65534

    /// Whether `nobody` can run the built `prefs` (no folder above it closed to others).
    static var canRunPrefs: Bool {
        guard geteuid() == 0 else { return false }
        let check = try? runProcess(
            URL(fileURLWithPath: "/usr/bin/setpriv"),
            [
                "--reuid=\(uid)", "--regid=\(gid)", "--clear-groups", "test", "-x",
                prefsExecutable().path,
            ])
        return check?.status == 0
    }
}

/// Every shell block of docs/postgresql.md, docs/sync.md and docs/deploy.md (but its
/// systemd unit and its devices on a made-up host: ``skippedSections``), run as a new user pastes them, in one shell (a folder of
/// its own for each document's files), on a server pair of its own configured as Debian configures one: run by the system user `postgres`, peer
/// authentication on the socket, `scram-sha-256` on 127.0.0.1 (``ReplicatedPostgres``'s
/// `.debian`); a streaming standby, and PgBouncer beside them on 127.0.0.1 port 6432.
///
/// The shell is a user's who is not the superuser: the system user `nobody`, with a home of
/// its own and no `PGUSER`, so a line that names no role logs in as `nobody`, and one that
/// names a role over the socket is refused by peer authentication, as a new user's was. A
/// `sudo -u postgres` line runs as the system user `postgres` (the shell keeps only the
/// capability to become another user, which the `sudo` in its `PATH` uses). `PGHOST` (the
/// servers' socket folder) and `PGPORT` (the primary's port) stand for libpq's defaults on
/// a Debian server; `PRIMARY` and `STANDBY` are the two servers' `host:port`, as the
/// failover block asks. Each line exits as its comment says ("exit 1: ...", else 0), prints
/// the comment lines below it and a one-word comment of its own; a `sql` block runs in
/// `sudo -u postgres psql -d prefs`, as the document says.
@Suite(
    .serialized,
    .enabled(if: PgBouncer.isInstalled, "PgBouncer is not installed"),
    .enabled(if: Installed.faketime, "faketime is not installed"),
    .enabled(if: Installed.curl, "curl is not installed"),
    .enabled(
        if: ReplicatedPostgres.canRunAsDebian,
        "a server configured as Debian's needs root and the system user 'postgres'"),
    .enabled(
        if: Newcomer.canRunPrefs,
        "the system user 'nobody' cannot run the built prefs (a folder above it is closed)"))
struct PostgreSQLDocsTests {
    static let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    static let documents = ["docs/postgresql.md", "docs/sync.md", "docs/deploy.md"]

    /// Sections of a document not run here, and why: deploy.md's systemd unit (systemd is
    /// not this machine's init: `SyncServerSystemdUnitTests` checks the unit) and its
    /// devices on `https://sync.example` (a name of no machine; its "first try on one
    /// machine" runs the same lines on 127.0.0.1).
    static let skippedSections = ["docs/deploy.md": ["## Under systemd", "## Devices"]]

    /// The markdown without its skipped sections (each up to the next `## ` heading).
    static func runnable(_ markdown: String, of document: String) -> String {
        let skipped = Set(skippedSections[document] ?? [])
        var kept: [Substring] = []
        var isSkipping = false
        for line in markdown.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("## ") { isSkipping = skipped.contains(String(line)) }
            if !isSkipping { kept.append(line) }
        }
        return kept.joined(separator: "\n")
    }

    static func steps(of document: String) throws -> [DocumentedShell.Step] {
        let markdown = runnable(
            try String(contentsOf: root.appendingPathComponent(document), encoding: .utf8),
            of: document)
        return DocumentedShell.blocks(of: markdown, languages: ["sh", "sql"]).flatMap {
            block -> [DocumentedShell.Step] in
            if block.language == "sql" {
                return [
                    DocumentedShell.Step(command: String(block.body), comment: "", language: "sql")
                ]
            }
            return DocumentedShell.steps(of: block.body)
        }
    }

    /// `sudo [-u USER] COMMAND...` as the documents use it: the command as that system user
    /// (root without `-u`), with the environment kept (its `PGHOST` and `PGPORT` stand for
    /// libpq's defaults).
    static let sudo = """
        #!/bin/sh
        user=root
        if [ "$1" = "-u" ]; then user=$2; shift 2; fi
        [ -n "$user" ] && [ $# -gt 0 ] || { echo "sudo: [-u USER] COMMAND is played" >&2; exit 1; }
        exec /usr/bin/setpriv --reuid="$user" --regid="$user" --init-groups \\
            --inh-caps=-all --ambient-caps=-all -- "$@"

        """

    /// The machine folders deploy.md names, and the test's own in their place (a user of
    /// this machine would need root for `/etc`; the lines are the document's).
    static func machineFolders(in folder: TemporaryFolder) -> [(String, String)] {
        [
            ("/etc/prefs", folder.path("etc-prefs")),
            ("/var/lib/prefs", folder.path("var-lib-prefs")),
        ]
    }

    /// Stops the nginx of deploy.md's first try if its own line did not (a failed run).
    static func stopNginx(pidFile: String) {
        guard
            let text = try? String(contentsOfFile: pidFile, encoding: .utf8),
            let pid = pid_t(text.trimmingCharacters(in: .whitespacesAndNewlines)), pid > 1
        else { return }
        kill(pid, SIGTERM)
        for _ in 0..<100 where kill(pid, 0) == 0 { usleep(20_000) }
        kill(pid, SIGKILL)
    }

    /// The passwords the documents put in `~/.pgpass` (`127.0.0.1:*:prefs:ROLE:PASSWORD`),
    /// which the pooler is given too.
    static func passwords(in steps: [DocumentedShell.Step]) -> [String: String] {
        var passwords: [String: String] = [:]
        for step in steps {
            for match in step.command.matches(of: /'127\.0\.0\.1:\*:prefs:([a-z_]+):([^'\s]+)'/) {
                passwords[String(match.1)] = String(match.2)
            }
        }
        return passwords
    }

    @Test func everyShellBlockOfTheServerDocsRunsAsItSays() throws {
        let steps = try Self.documents.flatMap { document in
            try Self.steps(of: document).map { (document: document, step: $0) }
        }
        #expect(steps.count >= 25)
        let passwords = Self.passwords(in: steps.map(\.step))
        #expect(Set(passwords.keys) == ["owner", "app", "alice", "sync_server"], "\(passwords)")
        let pair = try ReplicatedPostgres(authentication: .debian)
        defer { pair.stop() }
        let pooler = try PgBouncer(
            serverSocket: pair.primarySocket, users: [], passwords: passwords,
            serverHost: "127.0.0.1", serverPort: pair.primaryPort)
        defer { if let pid = pooler.pid { kill(pid, SIGTERM) } }
        let folder = try TemporaryFolder()
        let binaries = try #require(PostgresServer.findBinaries())
        let tools = folder.path("tools")
        try FileManager.default.createDirectory(atPath: tools, withIntermediateDirectories: true)
        try Self.sudo.write(toFile: tools + "/sudo", atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes(
            [.posixPermissions: 0o755], ofItemAtPath: tools + "/sudo")
        // The newcomer's home, which `sudo -u postgres psql -f` reads files in.
        try FileManager.default.setAttributes(
            [
                .posixPermissions: 0o755, .ownerAccountID: Newcomer.uid,
                .groupOwnerAccountID: Newcomer.gid,
            ], ofItemAtPath: folder.url.path)
        // deploy.md's folders, made as its first try asks, and its nginx block saved where it
        // says (`/etc/prefs/nginx.conf`), each in the test's folder.
        let folders = Self.machineFolders(in: folder)
        func placed(_ text: String) -> String {
            folders.reduce(text) { $0.replacingOccurrences(of: $1.0, with: $1.1) }
        }
        let etc = folders[0].1
        try FileManager.default.createDirectory(atPath: etc, withIntermediateDirectories: true)
        try placed(try NginxProxy.documentedConfiguration(repository: Self.root)).write(
            toFile: etc + "/nginx.conf", atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes(
            [.ownerAccountID: Newcomer.uid, .groupOwnerAccountID: Newcomer.gid],
            ofItemAtPath: etc)
        defer { Self.stopNginx(pidFile: folders[1].1 + "/nginx.pid") }
        var script = ""
        for (index, (document, step)) in steps.enumerated() {
            if index == 0 || steps[index - 1].document != document {
                let files = folder.path(document.replacingOccurrences(of: "/", with: "-"))
                script += "mkdir '\(files)' && cd '\(files)' || exit 99\n"
            }
            let output = folder.path("step-\(index)")
            if step.language == "sql" {
                try step.command.write(
                    toFile: folder.path("step-\(index).sql"), atomically: true, encoding: .utf8)
                script +=
                    "sudo -u postgres psql -d prefs -v ON_ERROR_STOP=1 -q -f '\(output).sql'"
                    + " >'\(output)' 2>&1\n"
            } else {
                script += "{ \(placed(step.command))\n} >'\(output)' 2>&1\n"
            }
            script += "echo \"step \(index) $?\"\n"
        }
        // What a line left in the background (`sync --watch &`) ends with the shell.
        script += "kill $(jobs -p) 2>/dev/null; wait\n"
        let path =
            "\(tools):\(prefsExecutable().deletingLastPathComponent().path):\(binaries)"
            + ":/usr/sbin:/usr/bin:/bin"
        let result = try runProcess(
            URL(fileURLWithPath: "/usr/bin/setpriv"),
            [
                "--reuid=\(Newcomer.uid)", "--regid=\(Newcomer.gid)", "--clear-groups",
                "--inh-caps=+setuid,+setgid", "--ambient-caps=+setuid,+setgid", "/bin/bash", "-c",
                script,
            ],
            environment: [
                "PATH": path, "HOME": folder.url.path, "PGHOST": pair.primarySocket,
                "PGPORT": "\(pair.primaryPort)", "PRIMARY": "127.0.0.1:\(pair.primaryPort)",
                "STANDBY": "127.0.0.1:\(pair.standbyPort)",
            ])
        let statuses = result.stdout.split(separator: "\n").compactMap { line -> Int32? in
            line.split(separator: " ").last.flatMap { Int32($0) }
        }
        #expect(statuses.count == steps.count, "\(result.stdout)\(result.stderr)")
        for (index, (_, step)) in steps.enumerated() where index < statuses.count {
            let printed =
                (try? String(contentsOfFile: folder.path("step-\(index)"), encoding: .utf8)) ?? ""
            #expect(statuses[index] == step.expectedStatus, "\(step.command): \(printed)")
            let lines = printed.split(separator: "\n").map {
                DocumentedShell.collapsingSpaces($0.trimmingCharacters(in: .whitespaces))
            }
            for expected in step.printed {
                #expect(
                    lines.contains(DocumentedShell.collapsingSpaces(expected)),
                    "\(step.command) did not print \"\(expected)\": \(printed)")
            }
            // A comment of one word is what the line prints (`get ...  # true`).
            if !step.comment.isEmpty, !step.comment.contains(" ") {
                #expect(
                    lines.contains(step.comment),
                    "\(step.command) did not print \"\(step.comment)\": \(printed)")
            }
        }
    }
}
