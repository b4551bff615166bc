import Foundation
import SQLiteCore
import TestSupport
import Testing

/// Keys are data that other people write (sync, imports, files from elsewhere): completing
/// them must never run them. Each test types `prefs --db FILE get PREFIX<Tab><Enter>` into
/// the real shell on a pseudo-terminal (`script` from util-linux), so the shell's own
/// completion machinery inserts the candidate; `get` then prints that key's value, which
/// proves that accepting the candidate typed exactly that key. A canary file that any of the
/// keys would create, if a shell evaluated it, must not exist afterwards.
@Suite struct CompletionAttackTests {
    let folder: TemporaryFolder
    let db: String
    let canary: String

    init() throws {
        folder = try TemporaryFolder()
        db = folder.path("prefs.sqlite")
        canary = folder.path("canary")
    }

    /// Each hostile key, its unique prefix (what is typed before Tab), and its value.
    var hostileKeys: [(key: String, prefix: String, value: String)] {
        [
            ("k1$(touch \(canary))", "k1", "value-command-substitution"),
            ("k2`touch \(canary)`", "k2", "value-backticks"),
            ("k3'single\"double", "k3", "value-quotes"),
            ("k4 with spaces*?[ab]", "k4", "value-spaces-and-globs"),
            ("k5\\back\\\\slash", "k5", "value-backslashes"),
            ("k6\n$(touch \(canary))", "k6", "value-newline"),
            ("k7;touch \(canary);#", "k7", "value-semicolon"),
            ("k8${HOME}~!$", "k8", "value-parameter-expansion"),
            ("k9|touch \(canary)&", "k9", "value-pipe"),
        ]
    }

    /// Stores the keys: through the command line where the key rules allow them, and by raw
    /// SQL where they do not (a file written by other software).
    func plantKeys() throws {
        for entry in hostileKeys where !entry.key.contains("\n") {
            let result = try runPrefs([
                "--db", db, "set", "--type", "string", entry.key, entry.value,
            ])
            #expect(result.status == 0, "\(entry.key): \(result.stderr)")
        }
        let connection = try Connection(path: db)
        for entry in hostileKeys where entry.key.contains("\n") {
            try connection.execute(
                sql: "INSERT INTO preference VALUES ('standard', ?, 'string', ?, 0, NULL)",
                arguments: [entry.key, entry.value])
        }
        // Invalid UTF-8 as a file from elsewhere may hold it; it must not run either.
        try connection.execute(
            sql:
                "INSERT INTO preference VALUES ('standard', CAST(? AS TEXT), 'string', 'x', 0, NULL)",
            arguments: [Data(Array("k0\u{1}$(touch \(canary))".utf8) + [0xFF, 0xFE])])
    }

    /// Types each line into an interactive `shell` on a pseudo-terminal and returns what the
    /// terminal showed, or nil when the shell or `script` is not installed.
    func typeIntoShell(_ shell: String, lines: [String]) throws -> String? {
        let executable = shell == "bash" ? "/bin/bash" : "/usr/bin/\(shell)"
        let manager = FileManager.default
        guard manager.isExecutableFile(atPath: executable),
            manager.isExecutableFile(atPath: "/usr/bin/script")
        else { return nil }
        let scriptFile = folder.path("prefs.\(shell)")
        let script = try runPrefs(["completion", shell])
        try script.stdout.write(toFile: scriptFile, atomically: true, encoding: .utf8)
        let interactive =
            switch shell {
            case "bash": "\(executable) --norc --noprofile -i"
            case "zsh": "\(executable) -f -i"
            default: "\(executable) --no-config -i"
            }
        let path =
            prefsExecutable().deletingLastPathComponent().path + ":"
            + (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin")
        let typed = (["source '\(scriptFile)'"] + lines + ["exit"]).joined(separator: "\n") + "\n"
        let result = try runProcess(
            URL(fileURLWithPath: "/usr/bin/script"), ["-qec", interactive, "/dev/null"],
            environment: [
                "PATH": path, "HOME": folder.url.path, "XDG_CONFIG_HOME": folder.path("config"),
                "TERM": "dumb", "NO_COLOR": "1",
            ],
            stdin: typed)
        return result.stdout
    }

    @Test(.enabled(if: Installed.bash && Installed.script, "bash or script is not installed"))
    func bashCompletingAHostileKeyRunsNothingAndTypesThatKey() throws {
        try completingAHostileKeyRunsNothingAndTypesThatKey(shell: "bash")
    }

    @Test(.enabled(if: Installed.zsh && Installed.script, "zsh or script is not installed"))
    func zshCompletingAHostileKeyRunsNothingAndTypesThatKey() throws {
        try completingAHostileKeyRunsNothingAndTypesThatKey(shell: "zsh")
    }

    @Test(.enabled(if: Installed.fish && Installed.script, "fish or script is not installed"))
    func fishCompletingAHostileKeyRunsNothingAndTypesThatKey() throws {
        try completingAHostileKeyRunsNothingAndTypesThatKey(shell: "fish")
    }

    func completingAHostileKeyRunsNothingAndTypesThatKey(shell: String) throws {
        try plantKeys()
        let lines =
            hostileKeys.map { "prefs --db '\(db)' get \($0.prefix)\t" }
            + ["prefs --db '\(db)' get k0\t"]
        let screen = try #require(try typeIntoShell(shell, lines: lines))
        let shown = screen.replacingOccurrences(of: "\r", with: "")
        for entry in hostileKeys {
            #expect(
                shown.contains("\n\(entry.value)\n"),
                "\(shell) did not type \(entry.key.debugDescription) when completing \(entry.prefix)"
            )
        }
        #expect(!FileManager.default.fileExists(atPath: canary), "\(shell) ran a key")
    }

    /// fish reads a TAB in a candidate as the start of its description, so it would offer
    /// `kt\tpart` as `kt`, another key; it leaves such a key out instead.
    @Test(.enabled(if: Installed.fish, "fish is not installed"))
    func fishLeavesOutAKeyWithATabRatherThanOfferAnotherKey() throws {
        let fish = URL(fileURLWithPath: "/usr/bin/fish")
        try runPrefs(["--db", db, "set", "--type", "string", "kt\tpart", "value-tab"])
        try runPrefs(["--db", db, "set", "--type", "string", "ktother", "value-other"])
        let scriptFile = folder.path("prefs.fish")
        try runPrefs(["completion", "fish"]).stdout.write(
            toFile: scriptFile, atomically: true, encoding: .utf8)
        let path =
            prefsExecutable().deletingLastPathComponent().path + ":"
            + (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin")
        let result = try runProcess(
            fish,
            ["--no-config", "-c", "source '\(scriptFile)'; complete -C'prefs --db \(db) get kt'"],
            environment: ["PATH": path, "HOME": folder.url.path])
        #expect(result.stdout == "ktother\n")
    }
}
