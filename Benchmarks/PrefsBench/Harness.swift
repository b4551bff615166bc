import Foundation

/// One implementation of a workload: a name and a closure that runs `iterations`
/// operations.
struct Contender {
    let name: String
    /// Operations per round for this contender, when it must differ (a very slow one).
    var iterations: Int? = nil
    let run: (_ iterations: Int) throws -> Void

    init(name: String, iterations: Int? = nil, run: @escaping (_ iterations: Int) throws -> Void) {
        self.name = name
        self.iterations = iterations
        self.run = run
    }
}

/// The per-operation times of one contender over the rounds of a workload.
struct Sample {
    let contender: String
    var nanosecondsPerOperation: [Double] = []
    /// The CPU time of the measuring thread per operation, round by round (on a shared
    /// machine, wall time counts other processes' turns too).
    var cpuNanosecondsPerOperation: [Double] = []
    /// The CPU time of the whole process per operation, every thread's (a library's
    /// background threads, its file monitor's included): what its users pay.
    var processCPUNanosecondsPerOperation: [Double] = []

    var median: Double { Self.median(of: nanosecondsPerOperation) }
    var cpuMedian: Double { Self.median(of: cpuNanosecondsPerOperation) }
    var processCPUMedian: Double { Self.median(of: processCPUNanosecondsPerOperation) }

    static func median(of values: [Double]) -> Double {
        let sorted = values.sorted()
        guard !sorted.isEmpty else { return .nan }
        let middle = sorted.count / 2
        return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
    }
    var minimum: Double { nanosecondsPerOperation.min() ?? .nan }
    var maximum: Double { nanosecondsPerOperation.max() ?? .nan }
}

/// A workload's results: every contender's samples, measured in interleaved rounds.
struct WorkloadResult {
    let name: String
    let unit: String
    let target: String
    var samples: [Sample]
    /// Whole-process rows: each contender's peak RSS, in kilobytes (`/usr/bin/time -f %M`).
    var peakKilobytes: [String: Int] = [:]

    func sample(_ contender: String) -> Sample? { samples.first { $0.contender == contender } }

    /// Each round's time of `contender` over raw C's in the same round, sorted: the rounds
    /// run the two back to back (in turns of order), so a pair shares the machine's state
    /// of the moment and the spread of the ratios is the comparison's own. Empty without a
    /// raw C contender.
    func roundRatios(of contender: String) -> [Double] {
        guard let own = sample(contender), let raw = sample("raw C") else { return [] }
        return zip(own.nanosecondsPerOperation, raw.nanosecondsPerOperation)
            .compactMap { $1 > 0 ? $0 / $1 : nil }.sorted()
    }

    /// The same of the rounds' CPU times.
    func roundCPURatios(of contender: String) -> [Double] {
        guard let own = sample(contender), let raw = sample("raw C") else { return [] }
        return zip(own.cpuNanosecondsPerOperation, raw.cpuNanosecondsPerOperation)
            .compactMap { $1 > 0 ? $0 / $1 : nil }.sorted()
    }

    /// The same of the rounds' process CPU times (every thread).
    func roundProcessCPURatios(of contender: String) -> [Double] {
        guard let own = sample(contender), let raw = sample("raw C") else { return [] }
        return zip(own.processCPUNanosecondsPerOperation, raw.processCPUNanosecondsPerOperation)
            .compactMap { $1 > 0 ? $0 / $1 : nil }.sorted()
    }
}

enum Clock {
    static func nanoseconds() -> UInt64 {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
    }

    /// The CPU time this thread has used.
    static func threadCPUNanoseconds() -> UInt64 {
        var time = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
        return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
    }

    /// The CPU time every thread of this process has used, and the processes it started and
    /// waited for (a whole-process row's programs, user and system time): what users pay.
    static func processCPUNanoseconds() -> UInt64 {
        var time = timespec()
        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &time)
        var children = rusage()
        #if os(Linux)
            getrusage(RUSAGE_CHILDREN.rawValue, &children)
        #else
            getrusage(RUSAGE_CHILDREN, &children)
        #endif
        let childMicroseconds =
            (Int64(children.ru_utime.tv_sec) + Int64(children.ru_stime.tv_sec)) * 1_000_000
            + Int64(children.ru_utime.tv_usec) + Int64(children.ru_stime.tv_usec)
        return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
            + UInt64(max(0, childMicroseconds)) * 1000
    }

    /// The machine's load averages over 1, 5 and 15 minutes (`getloadavg`), for the report:
    /// a figure means little without the load it ran at. Nil where they cannot be read.
    static func loadAverages() -> String? {
        var loads = [Double](repeating: 0, count: 3)
        guard getloadavg(&loads, 3) == 3 else { return nil }
        return loads.map { String(format: "%.2f", $0) }.joined(separator: " ")
    }
}

/// Runs contenders in interleaved rounds (A B C, C B A, ...) so that drift of the machine
/// affects each alike; one warm-up round is discarded.
///
/// With `slices` above 1 each round is cut into that many slices, and the contenders take
/// turns slice by slice (A B, B A, ...), each round's time being the sum of a contender's
/// slices: a pause of the machine (a stolen tick, another process) then falls on both
/// sides of a round alike instead of on the one that ran during it.
func measure(
    _ name: String, unit: String = "ns/op", target: String, rounds: Int, iterations: Int,
    slices: Int = 1, _ contenders: [Contender]
) throws -> WorkloadResult {
    var samples = contenders.map { Sample(contender: $0.name) }
    for round in 0...rounds {
        var elapsed = [UInt64](repeating: 0, count: contenders.count)
        var cpu = [UInt64](repeating: 0, count: contenders.count)
        var processCPU = [UInt64](repeating: 0, count: contenders.count)
        var counts = [Int](repeating: 0, count: contenders.count)
        for slice in 0..<max(1, slices) {
            // The order turns each slice, so that no side always runs first (or right
            // after the other): the machine's state at a slice's start counts against each
            // in turn.
            let turn = round &+ slice
            let order = turn % 2 == 0 ? Array(contenders.indices) : contenders.indices.reversed()
            for index in order {
                let contender = contenders[index]
                let total = contender.iterations ?? iterations
                let count = max(1, total / max(1, slices))
                let start = Clock.nanoseconds()
                let startProcess = Clock.processCPUNanoseconds()
                let startCPU = Clock.threadCPUNanoseconds()
                try contender.run(count)
                cpu[index] += Clock.threadCPUNanoseconds() - startCPU
                processCPU[index] += Clock.processCPUNanoseconds() - startProcess
                elapsed[index] += Clock.nanoseconds() - start
                counts[index] += count
            }
        }
        if round > 0 {
            for index in contenders.indices {
                samples[index].nanosecondsPerOperation.append(
                    Double(elapsed[index]) / Double(counts[index]))
                samples[index].cpuNanosecondsPerOperation.append(
                    Double(cpu[index]) / Double(counts[index]))
                samples[index].processCPUNanosecondsPerOperation.append(
                    Double(processCPU[index]) / Double(counts[index]))
            }
        }
    }
    return WorkloadResult(name: name, unit: unit, target: target, samples: samples)
}

/// Resident set size of this process in bytes (0 where `/proc` is missing: not Linux).
func residentBytes() -> Int {
    #if os(Linux)
        guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else {
            return 0
        }
        let fields = text.split(separator: " ")
        guard fields.count > 1, let pages = Int(fields[1]) else { return 0 }
        return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
    #else
        return 0
    #endif
}

struct BenchmarkError: Error, CustomStringConvertible {
    let description: String
}
