import Foundation
import PrefsKit

/// How fast another process's commit reaches an observer, and how often an observing process
/// that sees no changes wakes up. Both need a second process: this executable again as the
/// writer, and `prefs-idle-observer`.
enum ObservationWorkloads {
    static let key = Prefs.Key("observed", default: -1)

    /// The system-wide monotonic clock both processes read, in nanoseconds.
    static func monotonicNanoseconds() -> UInt64 {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
    }

    /// `--commit-writer PATH N`: sets the key to 0..<N, one commit each, 1-25 ms apart (commits
    /// come when they come, not in step with anything), and prints `sample nanoseconds` with
    /// the clock read just before each set.
    static func runWriter(path: String, samples: Int) throws {
        var options = AppDatabase.Options()
        options.watchesForChanges = false
        let store = PreferenceStore(database: try AppDatabase(path: path, options: options))
        var lines: [String] = []
        for sample in 0..<samples {
            usleep(UInt32.random(in: 1_000...25_000))
            let started = monotonicNanoseconds()
            try store.set(sample, for: key)
            lines.append("\(sample) \(started)")
        }
        print(lines.joined(separator: "\n"))
    }

    /// The delays, in milliseconds, from just before another process's set to the moment an
    /// observer here heard the value.
    static func deliveryDelays(executable: String, folder: URL, samples: Int) async throws
        -> [Double]
    {
        let path = folder.appendingPathComponent("observed-\(getpid()).sqlite").path
        let store = PreferenceStore(database: try AppDatabase(path: path))
        try store.set(-1, for: key)
        let arrivals = Arrivals()
        let stream = store.values(for: key)
        let task = Task { for await value in stream { arrivals.record(value) } }
        defer { task.cancel() }
        let output = try run(executable, ["--commit-writer", path, String(samples)])
        // Let the last change arrive.
        let deadline = monotonicNanoseconds() + 5_000_000_000
        while arrivals.time(of: samples - 1) == nil && monotonicNanoseconds() < deadline {
            try await Task.sleep(for: .milliseconds(1))
        }
        var delays: [Double] = []
        for line in output.split(separator: "\n") {
            let fields = line.split(separator: " ")
            guard fields.count == 2, let sample = Int(fields[0]), let started = UInt64(fields[1])
            else { continue }
            guard let arrived = arrivals.time(of: sample) else {
                throw BenchmarkError(description: "the observer never heard value \(sample)")
            }
            delays.append(Double(Int64(arrived) - Int64(started)) / 1_000_000)
        }
        guard delays.count == samples else {
            throw BenchmarkError(
                description: "the writer reported \(delays.count) of \(samples) commits")
        }
        return delays
    }

    /// Context switches per second of an idle observing process, and its change detection.
    static func idleWakeups(idleObserver executable: String, folder: URL, seconds: Int) throws -> (
        perSecond: Double, detection: String
    ) {
        let path = folder.appendingPathComponent("idle-\(getpid()).sqlite").path
        let store = PreferenceStore(database: try AppDatabase(path: path))
        try store.set(0, for: key)
        let output = try run(executable, [path, String(seconds)])
        let trimmed = output.trimmingCharacters(in: .whitespacesAndNewlines)
        guard let space = trimmed.firstIndex(of: " "), let switches = Int(trimmed[..<space]) else {
            throw BenchmarkError(description: "the idle observer printed '\(trimmed)'")
        }
        return (Double(switches) / Double(seconds), String(trimmed[trimmed.index(after: space)...]))
    }

    private static func run(_ executable: String, _ arguments: [String]) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw BenchmarkError(
                description:
                    "\(executable) \(arguments[0]) exited with status \(process.terminationStatus)")
        }
        return String(decoding: data, as: UTF8.self)
    }
}
