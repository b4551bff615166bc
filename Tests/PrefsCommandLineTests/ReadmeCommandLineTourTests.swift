import Foundation
import TestSupport
import Testing

/// The README's tour of the command line, run line by line as a user would paste it: each
/// line exits as its comment says ("exit 1: ..."), else 0.
@Suite struct ReadmeCommandLineTourTests {
    static let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// The commands of the tour: continuation lines joined, comments kept apart.
    static func tourLines() throws -> [(command: String, comment: String)] {
        let readme = try String(
            contentsOf: root.appendingPathComponent("README.md"), encoding: .utf8)
        let section = try #require(readme.range(of: "## A tour of the command line\n"))
        let block = try #require(
            DocumentedShell.blocks(of: String(readme[section.upperBound...]), languages: ["sh"])
                .first)
        return DocumentedShell.steps(of: block.body).map { ($0.command, $0.comment) }
    }

    @Test func everyLineOfTheTourExitsAsItsCommentSays() throws {
        let lines = try Self.tourLines()
        #expect(lines.count >= 20)
        let folder = try TemporaryFolder()
        let bin = prefsExecutable().deletingLastPathComponent().path
        // One shell for the whole tour, as a user types it: `export` and `%1` carry over.
        var script = "cd '\(folder.url.path)' || exit 99\n"
        for (index, line) in lines.enumerated() {
            let command = line.command.replacingOccurrences(
                of: "/tmp/prefs-tour.sqlite", with: folder.path("tour.sqlite"))
            script += "{ \(command)\n} >.tour-\(index) 2>&1\necho \"line \(index) $?\"\n"
        }
        let result = try runProcess(
            URL(fileURLWithPath: "/bin/bash"), ["-c", script],
            environment: ["PATH": "\(bin):/usr/bin:/bin", "HOME": folder.url.path])
        let statuses = result.stdout.split(separator: "\n").compactMap { line -> Int32? in
            line.split(separator: " ").last.flatMap { Int32($0) }
        }
        #expect(statuses.count == lines.count, "\(result.stdout)\(result.stderr)")
        for (index, line) in lines.enumerated() where index < statuses.count {
            let expected = DocumentedShell.Step(command: line.command, comment: line.comment)
                .expectedStatus
            // `kill %1` ends the watcher that the line before put in the background.
            #expect(statuses[index] == expected, "\(line.command)")
            // What a comment says a line prints (`shouldShow=false`) is in what it printed.
            let printed =
                (try? String(contentsOfFile: folder.path(".tour-\(index)"), encoding: .utf8)) ?? ""
            for match in line.comment.matches(of: #/[A-Za-z]+=[A-Za-z0-9]+/#) {
                #expect(printed.contains(match.output), "\(line.command): \(printed)")
            }
            // A line said to find something printed it.
            if line.comment.contains("found") {
                #expect(!printed.isEmpty, "\(line.command) found nothing")
            }
        }
    }

    /// The install lines work in a home without `~/.local/bin` or a completions folder (a
    /// user ran into `install` failing there); the build line is left out, and the file
    /// installed is the `prefs` under test.
    @Test func theInstallLinesWorkInAFreshHome() throws {
        let readme = try String(
            contentsOf: Self.root.appendingPathComponent("README.md"), encoding: .utf8)
        let section = try #require(readme.range(of: "## Installing the tool\n"))
        let opening = try #require(
            readme.range(of: "```sh\n", range: section.upperBound..<readme.endIndex))
        let closing = try #require(
            readme.range(of: "```\n", range: opening.upperBound..<readme.endIndex))
        let home = try TemporaryFolder()
        var script = "set -e\n"
        for line in readme[opening.upperBound..<closing.lowerBound].split(separator: "\n") {
            let command = String(line.split(separator: "#").first ?? "")
                .trimmingCharacters(in: .whitespaces)
            if command.isEmpty || command.hasPrefix("Install/build-static") { continue }
            script +=
                command.replacingOccurrences(
                    of: ".build/static/release/prefs", with: prefsExecutable().path) + "\n"
        }
        let result = try runProcess(
            URL(fileURLWithPath: "/bin/bash"), ["-c", script],
            environment: [
                // A fresh login: ~/.local/bin is not on the PATH yet.
                "HOME": home.url.path, "PATH": "/usr/bin:/bin",
            ])
        #expect(result.status == 0, "\(script)\n\(result.stderr)")
        let manager = FileManager.default
        #expect(manager.isExecutableFile(atPath: home.path(".local/bin/prefs")))
        let completion = home.path(".local/share/bash-completion/completions/prefs")
        #expect(
            (try? String(contentsOfFile: completion, encoding: .utf8))?.contains("prefs") == true)
    }
}
