import Foundation
import SQLiteCore
import TestSupport

/// Settings of the reliability runs: bounded for CI, larger with PREFS_RELIABILITY_LONG=1
/// (what `Tests/reliability --long` sets).
enum Reliability {
    static var isLong: Bool { ProcessInfo.processInfo.environment["PREFS_RELIABILITY_LONG"] == "1" }

    /// Writes a line of figures to stderr when PREFS_RELIABILITY_REPORT=1 (what
    /// `Tests/reliability` sets); plain `swift test` prints only the runner's lines.
    static func report(_ line: String) {
        guard ProcessInfo.processInfo.environment["PREFS_RELIABILITY_REPORT"] == "1" else { return }
        FileHandle.standardError.write(Data((line + "\n").utf8))
    }

    /// The built `prefs-stress` helper, next to `prefs`.
    static var stressExecutable: URL {
        prefsExecutable().deletingLastPathComponent().appendingPathComponent("prefs-stress")
    }

    /// Starts a process without waiting for it.
    static func start(_ executable: URL, _ arguments: [String], environment: [String: String] = [:])
        throws -> ChildProcess
    {
        try ChildProcess(executable.path, arguments, environment: environment)
    }

    /// kill -9 at a random moment, trial after trial: each trial prepares a fresh database
    /// file, starts `prefs-stress` with the arguments made for it, kills it after 0-40 ms and
    /// checks the file. `check` returns whether the helper was cut part-way (some of its
    /// work done, some not); the count of such trials is returned.
    static func killAtRandomMoments(
        trials: Int, in folder: TemporaryFolder, prepare: (String) throws -> Void,
        helperArguments: (String) -> [String], check: (_ trial: Int, _ path: String) throws -> Bool
    ) async throws -> Int {
        var generator = SystemRandomNumberGenerator()
        var partWay = 0
        for trial in 0..<trials {
            let path = folder.path("t\(trial).sqlite")
            try prepare(path)
            let helper = try start(stressExecutable, helperArguments(path))
            try await Task.sleep(for: .milliseconds(Int.random(in: 0...40, using: &generator)))
            helper.send(SIGKILL)
            helper.wait()
            if try check(trial, path) { partWay += 1 }
        }
        return partWay
    }

    /// Runs a shell script and returns its exit status and output.
    @discardableResult
    static func shell(_ script: String, environment: [String: String] = [:]) throws -> ProcessOutput
    {
        let tools = ["PREFS": prefsExecutable().path, "STRESS": stressExecutable.path]
        return try runProcess(
            URL(fileURLWithPath: "/bin/bash"), ["-c", script],
            environment: tools.merging(environment) { $1 })
    }

    /// The integer values of keys with a prefix, read directly with SQLite.
    static func storedIntegers(_ path: String, prefix: String) throws -> [String: Int] {
        let connection = try Connection(path: path, mode: .readOnly)
        // A killed writer's process may take a moment to go; the first reader after it
        // also recovers the write-ahead log.
        connection.setBusyTimeout(milliseconds: 5_000)
        var result: [String: Int] = [:]
        for row in try connection.rows(
            sql:
                "SELECT key, value FROM preference WHERE suite = 'standard' AND substr(key, 1, ?) = ?",
            arguments: [prefix.count, prefix])
        {
            if let key = row.get(0, as: String.self), let value = row.get(1, as: Int.self) {
                result[key] = value
            }
        }
        return result
    }

    static func integrity(_ path: String) throws -> String {
        let connection = try Connection(path: path, mode: .readOnly)
        return try connection.rows(sql: "PRAGMA integrity_check")
            .compactMap { $0.get(0, as: String.self) }.joined(separator: "; ")
    }

    /// The confirmed indices in a confirm file (one per line).
    static func confirmed(_ path: String) -> [Int] {
        ((try? String(contentsOfFile: path, encoding: .utf8)) ?? "")
            .split(separator: "\n").compactMap { Int($0) }
    }
}
