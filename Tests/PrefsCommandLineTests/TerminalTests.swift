import Foundation
import PrefsKit
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// `script` is installed and the system hands out pseudo-terminals.
private let canRunOnATerminal: Bool = {
    guard FileManager.default.isExecutableFile(atPath: "/usr/bin/script") else { return false }
    #if canImport(Glibc)
        let terminal = open("/dev/ptmx", O_RDWR | O_NOCTTY)
        guard terminal >= 0 else { return false }
        close(terminal)
        return true
    #else
        return false
    #endif
}()

/// What `prefs` does only when it talks to a terminal: colors, the import progress bar and
/// confirmation prompts. `script` (util-linux) runs it on a pseudo-terminal, where stdout and
/// stderr arrive mixed, with `\r\n` line ends.
@Suite(.enabled(if: canRunOnATerminal))
struct TerminalTests {
    let folder: TemporaryFolder
    let db: String

    init() throws {
        folder = try TemporaryFolder()
        db = folder.path("prefs.sqlite")
    }

    /// Runs prefs on a pseudo-terminal, typing `input`.
    func onTerminal(_ arguments: [String], input: String = "", noColor: Bool = false) throws -> (
        status: Int32, output: String
    ) {
        let quoted = ([prefsExecutable().path, "--db", db] + arguments)
            .map { "'" + $0.replacingOccurrences(of: "'", with: "'\\''") + "'" }
            .joined(separator: " ")
        // An empty NO_COLOR counts as unset.
        let environment = ["TERM": "xterm", "NO_COLOR": noColor ? "1" : ""]
        let result = try runProcess(
            URL(fileURLWithPath: "/usr/bin/script"), ["-qec", quoted, "/dev/null"],
            environment: environment, stdin: input)
        return (result.status, result.stdout)
    }

    @Test func errorsAreRedOnATerminalUnlessNoColorIsSet() throws {
        let message =
            "No value for 'missing' in suite 'standard'; set one with 'prefs set missing VALUE'"
        let colored = try onTerminal(["get", "missing"])
        #expect(colored.status == 1)
        #expect(colored.output == "\u{1B}[1;31mError:\u{1B}[0m \(message)\r\n")
        let plain = try onTerminal(["get", "missing"], noColor: true)
        #expect(plain.status == 1)
        #expect(plain.output == "Error: \(message)\r\n")
        // Not a terminal: plain, NO_COLOR or not.
        let piped = try runPrefs(["--db", db, "get", "missing"], environment: ["NO_COLOR": ""])
        #expect(piped.stderr == "Error: \(message)\n")
    }

    @Test func aBinaryExportRefusesATerminal() throws {
        #expect(try runPrefs(["--db", db, "set", "volume", "0.5"]).status == 0)
        let result = try onTerminal(["export", "--format", "binary-plist"], noColor: true)
        #expect(result.status == 64)
        #expect(
            result.output
                == "Error: a binary property list is not for a terminal; redirect the output"
                + " ('prefs export --format binary-plist > FILE') or name a file\r\n")
    }

    @Test func importDrawsAProgressBarOnATerminalOnly() throws {
        let source = folder.path("source.sqlite")
        let bookmarks = BookmarkStore(database: try AppDatabase(path: source))
        try bookmarks.add(
            contentsOf: (0..<500).map {
                BookmarkDraft(kind: "trip", itemID: "t\($0)", title: "Trip \($0)")
            })
        let file = folder.path("bookmarks.json")
        #expect(try runPrefs(["--db", source, "bookmark", "export", file]).status == 0)

        let drawn = try onTerminal(["bookmark", "import", file])
        #expect(drawn.status == 0, "\(drawn.output)")
        #expect(
            drawn.output.contains("\rImporting [...............................] 0% (0/500)")
                || drawn.output.contains("\rImporting [#"))
        #expect(
            drawn.output.contains("\rImporting [##############################] 100% (500/500)"))
        #expect(drawn.output.contains("\r\u{1B}[2K"), "the bar's line is cleared at the end")

        let piped = try runPrefs(["--db", folder.path("piped.sqlite"), "bookmark", "import", file])
        #expect(piped.status == 0)
        #expect(!piped.stderr.contains("Importing ["))
    }

    @Test func destructiveCommandsAskOnATerminal() throws {
        #expect(try runPrefs(["--db", db, "set", "a", "1"]).status == 0)
        let declined = try onTerminal(["reset"], input: "n\n", noColor: true)
        #expect(declined.status != 0)
        // The terminal echoes the typed answer, before or after the prompt.
        #expect(declined.output.contains("Remove every preference of suite 'standard'? [y/N] "))
        #expect(try runPrefs(["--db", db, "get", "a"]).stdout == "1\n")

        let accepted = try onTerminal(["reset"], input: "y\n", noColor: true)
        #expect(accepted.status == 0, "\(accepted.output)")
        #expect(try runPrefs(["--db", db, "get", "a"]).status == 1)

        // Without a terminal there is no one to ask: --force is required.
        #expect(try runPrefs(["--db", db, "set", "a", "1"]).status == 0)
        let refused = try runPrefs(["--db", db, "reset"])
        #expect(refused.status == 64)
        #expect(try runPrefs(["--db", db, "get", "a"]).stdout == "1\n")
    }
}

extension TerminalTests {
    /// On a terminal `get` shows control characters escaped; on a pipe it prints the bytes.
    @Test func getEscapesControlCharactersOnATerminalOnly() throws {
        let key = "bell"
        #expect(
            try runPrefs(["--db", db, "set", "--type", "string", key, "a\u{7}\u{1B}[2Jb"]).status
                == 0)
        let shown = try onTerminal(["get", key], noColor: true)
        #expect(shown.status == 0)
        #expect(shown.output == "a\\u{7}\\u{1b}[2Jb\r\n")
        #expect(try runPrefs(["--db", db, "get", key]).stdout == "a\u{7}\u{1B}[2Jb\n")
    }
}
