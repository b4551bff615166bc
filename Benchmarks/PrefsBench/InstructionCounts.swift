import Foundation

/// Instructions per operation, counted by callgrind, for PrefsKit and its raw C twin: each
/// runs `prefs-bench --operations KIND N` twice (N and 2N operations, only the operations
/// themselves counted), and the difference divided by N is one operation. Counts do not
/// depend on what else the machine is doing, unlike times.
struct InstructionCount {
    let workload: String
    let operation: String
    let prefsKit: Int
    let rawC: Int

    var ratio: Double { rawC > 0 ? Double(prefsKit) / Double(rawC) : .nan }

    /// The rows of the issue's targets: what one operation is, its PrefsKit and raw C kinds
    /// in ``OperationCounter``, and N.
    static let rows:
        [(workload: String, operation: String, kind: String, rawKind: String, count: Int)] = [
            ("get, uncached", "one get", "uncached-get", "raw-uncached-get", 20_000),
            (
                "get, uncached, 1,000 keys in turn", "one get", "uncached-get-1000",
                "raw-uncached-get-1000", 20_000
            ),
            (
                "bookmark insert in one transaction", "one bookmark", "bookmark", "raw-bookmark",
                1_000
            ),
            (
                "list by category",
                "one list of \(OperationCounter.listRows / 20) of \(OperationCounter.listRows)",
                "list", "raw-list", 4
            ),
            // The import's storing (the file read beforehand) against raw C inserting the rows.
            ("bookmark import from HTML, storing", "one link", "import", "raw-bookmark", 1_000),
        ]

    /// nil when valgrind is not installed.
    static func measure(executable: String) throws -> [InstructionCount]? {
        guard let valgrind else { return nil }
        func perOperation(_ kind: String, _ count: Int) throws -> Int {
            let one = try collected(valgrind, executable, kind, count)
            let two = try collected(valgrind, executable, kind, 2 * count)
            return (two - one) / count
        }
        return try rows.map { row in
            InstructionCount(
                workload: row.workload, operation: row.operation,
                prefsKit: try perOperation(row.kind, row.count),
                rawC: try perOperation(row.rawKind, row.count))
        }
    }

    /// Instructions of one whole `prefs get` process and of the C program doing the same,
    /// on a database of their own; nil when valgrind is not installed.
    static func wholeProcessGet(prefs: String, cget: String, folder: URL) throws -> (
        prefs: Int, c: Int
    )? {
        guard let valgrind else { return nil }
        let path = folder.appendingPathComponent("instructions-cli.sqlite").path
        let setUp = Process()
        setUp.executableURL = URL(fileURLWithPath: prefs)
        setUp.arguments = ["--db", path, "set", "hasViewedWalkthrough", "true"]
        setUp.standardOutput = FileHandle.nullDevice
        try setUp.run()
        setUp.waitUntilExit()
        guard setUp.terminationStatus == 0 else {
            throw BenchmarkError(description: "\(prefs) set exited with \(setUp.terminationStatus)")
        }
        return (
            try collected(valgrind, [prefs, "--db", path, "get", "hasViewedWalkthrough"]),
            try collected(valgrind, [cget, path, "hasViewedWalkthrough"])
        )
    }

    private static var valgrind: String? {
        ["/usr/bin/valgrind", "/usr/local/bin/valgrind"].first(where: {
            FileManager.default.isExecutableFile(atPath: $0)
        })
    }

    private static func collected(
        _ valgrind: String, _ executable: String, _ kind: String, _ count: Int
    )
        throws -> Int
    {
        try collected(
            valgrind, [executable, "--operations", kind, String(count)],
            options: ["--collect-atstart=no", "--toggle-collect=*OperationCounter*counted*"])
    }

    /// The instructions callgrind counts for one run of `command` (all of it, unless
    /// `options` narrow the collection).
    private static func collected(
        _ valgrind: String, _ command: [String], options: [String] = []
    ) throws -> Int {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: valgrind)
        process.arguments =
            ["--tool=callgrind", "--callgrind-out-file=/dev/null"] + options + command
        var environment = ProcessInfo.processInfo.environment
        // A fixed hash seed, so that both runs do the same set-up work.
        environment["SWIFT_DETERMINISTIC_HASHING"] = "1"
        process.environment = environment
        let errors = Pipe()
        process.standardError = errors
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        let output = String(
            decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        guard process.terminationStatus == 0,
            let line = output.split(separator: "\n").first(where: { $0.contains("Collected : ") }),
            let number = line.split(separator: " ").last.flatMap({ Int($0) })
        else {
            var reason = "callgrind of \(command.joined(separator: " ")) failed"
            if output.contains("dwarf") || output.contains("debuginfo") {
                // valgrind 3.19 reads DWARF 4, not the DWARF 5 of today's toolchains.
                reason +=
                    " (its debug information: build with -Xswiftc -dwarf-version=4 -Xcc -gdwarf-4)"
            }
            throw BenchmarkError(description: "\(reason):\n\(output)")
        }
        return number
    }

    static func table(_ counts: [InstructionCount]) -> String {
        var lines = [
            "Instructions per operation (callgrind; PrefsKit and raw C on the same schema and pragmas):",
            "",
            "| workload | operation | PrefsKit | raw C | ratio |",
            "|---|---|---|---|---|",
        ]
        for count in counts {
            lines.append(
                "| \(count.workload) | \(count.operation) | \(count.prefsKit.formatted()) | "
                    + "\(count.rawC.formatted()) | \(String(format: "%.2fx", count.ratio)) |")
        }
        return lines.joined(separator: "\n") + "\n"
    }
}
