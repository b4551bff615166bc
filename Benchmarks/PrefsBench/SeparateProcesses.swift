import Foundation
import TestSupport

/// Each side in a process of its own: PrefsKit's operations and raw C's, each run by
/// `prefs-bench --operations KIND N` alone, the two alternating, and compared by the process
/// CPU of every thread over the operations alone (the counted region, which the child prints
/// on standard error). So a thread of PrefsKit's (the file monitor) is charged to PrefsKit,
/// never to the floor beside it, as a user pays it.
struct SeparateProcesses {
    /// One pair of kinds, and how many operations each run does.
    struct Pair {
        let name: String
        let kind: String
        let floor: String
        let count: Int
    }

    /// One pair's runs: process CPU and wall time per operation, in microseconds.
    struct Result {
        let pair: Pair
        var prefsKit: [(cpu: Double, wall: Double)] = []
        var floor: [(cpu: Double, wall: Double)] = []

        /// The ratio of each round's process CPU.
        var ratios: [Double] {
            zip(prefsKit, floor).map { $0.cpu / max($1.cpu, 1e-9) }
        }
    }

    static func pairs(quick: Bool) -> [Pair] {
        [
            Pair(
                name: "set, own commit, file watching on", kind: "set", floor: "raw-set",
                count: quick ? 5_000 : 50_000),
            Pair(
                name: "sets in one transaction", kind: "set-batch", floor: "raw-set-batch",
                count: quick ? 20_000 : 100_000),
            Pair(
                name: "bookmark insert in one transaction", kind: "bookmark",
                floor: "raw-bookmark", count: quick ? 10_000 : 100_000),
            Pair(
                name: "uncached get", kind: "uncached-get", floor: "raw-uncached-get",
                count: quick ? 50_000 : 500_000),
        ]
    }

    let executable: String

    /// Runs every pair `rounds` times, PrefsKit first and the floor next in each round.
    func run(pairs: [Pair], rounds: Int) throws -> [Result] {
        try pairs.map { pair in
            var result = Result(pair: pair)
            for _ in 0..<rounds {
                result.prefsKit.append(try measure(pair.kind, count: pair.count))
                result.floor.append(try measure(pair.floor, count: pair.count))
            }
            return result
        }
    }

    /// One child's counted region, per operation.
    private func measure(_ kind: String, count: Int) throws -> (cpu: Double, wall: Double) {
        let output = try runProcess(
            URL(fileURLWithPath: executable), ["--operations", kind, String(count)])
        guard output.status == 0,
            let line = output.stderr.split(separator: "\n").last(where: {
                $0.hasPrefix("counted region: ")
            })
        else {
            throw BenchmarkError(
                description: "prefs-bench --operations \(kind) \(count) failed: \(output.stderr)")
        }
        // "counted region: process CPU X s, wall Y s"
        let words = line.split(separator: " ")
        guard words.count >= 8, let cpu = Double(words[4]), let wall = Double(words[7]) else {
            throw BenchmarkError(description: "unreadable: \(line)")
        }
        return (cpu * 1e6 / Double(count), wall * 1e6 / Double(count))
    }

    static func table(_ results: [Result], load: String) -> String {
        var lines = [
            "Each side in its own process (`prefs-bench --operations`, the counted region's"
                + " process CPU of every thread; load \(load)):",
            "",
            "| operation | N | PrefsKit CPU, wall (us/op) | raw C CPU, wall (us/op) | CPU ratio per round |",
            "|---|---|---|---|---|",
        ]
        func figures(_ runs: [(cpu: Double, wall: Double)]) -> String {
            runs.map { String(format: "%.2f, %.2f", $0.cpu, $0.wall) }.joined(separator: "; ")
        }
        for result in results {
            lines.append(
                "| \(result.pair.name) | \(result.pair.count) | \(figures(result.prefsKit))"
                    + " | \(figures(result.floor)) | "
                    + result.ratios.map { String(format: "%.2fx", $0) }.joined(separator: ", ")
                    + " |")
        }
        return lines.joined(separator: "\n") + "\n"
    }
}
