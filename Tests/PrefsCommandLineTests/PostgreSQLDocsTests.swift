import Foundation
import TestSupport
import Testing

/// Every shell block of docs/postgresql.md and then docs/sync.md, run as a new user pastes
/// them, in one shell (a folder of its own for each document's files), on a server pair of
/// its own: a primary with a streaming standby and
/// PgBouncer beside it on port 6432. The shell has what such a user's machine has and no
/// more: the server's socket in `PGHOST` (libpq's default host on the server's machine), the
/// two hosts in `PRIMARY` and `STANDBY` (as the failover block asks), and no `PGUSER`, so a
/// line that names no role connects as the user running it, as a new user's did. Each line
/// exits as its comment says ("exit 1: ...", else 0), prints the comment lines below it and
/// a one-word comment of its own; a `sql` block runs in `psql -U postgres -d prefs`, as the
/// document says.
@Suite(
    .serialized,
    .enabled(if: PgBouncer.isInstalled, "PgBouncer is not installed"),
    .enabled(if: Installed.faketime, "faketime is not installed"))
struct PostgreSQLDocsTests {
    static let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    static let documents = ["docs/postgresql.md", "docs/sync.md"]

    static func steps(of document: String) throws -> [DocumentedShell.Step] {
        let markdown = try String(
            contentsOf: root.appendingPathComponent(document), encoding: .utf8)
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

    @Test func everyShellBlockOfTheServerDocsRunsAsItSays() throws {
        let steps = try Self.documents.flatMap { document in
            try Self.steps(of: document).map { (document: document, step: $0) }
        }
        #expect(steps.count >= 25)
        let pair = try ReplicatedPostgres()
        defer { pair.stop() }
        let pooler = try PgBouncer(
            serverSocket: pair.primarySocket, socketFolder: pair.primarySocket,
            users: ["postgres", "owner", "app", "alice"])
        defer { if let pid = pooler.pid { kill(pid, SIGTERM) } }
        let folder = try TemporaryFolder()
        let binaries = try #require(PostgresServer.findBinaries())
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
                    "psql -U postgres -d prefs -v ON_ERROR_STOP=1 -q -f '\(output).sql'"
                    + " >'\(output)' 2>&1\n"
            } else {
                script += "{ \(step.command)\n} >'\(output)' 2>&1\n"
            }
            script += "echo \"step \(index) $?\"\n"
        }
        // What a line left in the background (`sync --watch &`) ends with the shell.
        script += "kill $(jobs -p) 2>/dev/null; wait\n"
        let path = "\(prefsExecutable().deletingLastPathComponent().path):\(binaries):/usr/bin:/bin"
        let result = try runProcess(
            URL(fileURLWithPath: "/bin/bash"), ["-c", script],
            environment: [
                "PATH": path, "HOME": folder.url.path, "PGHOST": pair.primarySocket,
                "PRIMARY": pair.primarySocket, "STANDBY": pair.standbySocket,
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
