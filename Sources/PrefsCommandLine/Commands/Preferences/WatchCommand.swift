import Dispatch
import PrefsKit

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// `prefs watch [KEY ...]`: prints changes as they happen, until interrupted.
struct WatchCommand: RunnableCommand {
    static var name: String { "watch" }
    static let keys = RepeatingArgument<String>(
        "key", help: "Keys to watch (default: all of the suite).", isOptional: true,
        completesKeys: true)
    static let spec = CommandSpec(
        Self.self, abstract: "Print changes of preferences as they happen, from any process.",
        discussion: "Runs until interrupted. With --json, prints one JSON object per line.",
        arguments: [keys.spec], scope: .preferences)

    var keys: [String] = []

    func run(_ context: CommandContext) throws {
        CommandContext.exitOnStopSignals()
        // The database's files and the file-event descriptor, then the executor's: too few
        // left, and a fallback to polling would start Swift's executor early, in a thread
        // this command cannot stop.
        try Self.requireSpareDescriptors(Self.descriptorsForFiles + Self.descriptorsForTasks)
        let path = context.databasePath
        let isFile = !AppDatabase.isConnectionString(path)
        var madeSinceStart = false
        while true {
            while !context.databaseExists {
                usleep(50_000)
                madeSinceStart = true
            }
            // Held open, the file keeps its inode number: a file made again at the path has
            // another one, however soon.
            let held = isFile ? open(path, O_RDONLY | O_CLOEXEC) : -1
            defer { if held >= 0 { close(held) } }
            let database = try context.openExistingForReading()
            // A file made at the path a moment ago, before its maker's first commit: opened
            // again once it has its schema (this connection, opened on no schema, would not
            // read the tables that commit makes).
            guard !database.wasOpenedBeforeItsSchema else {
                usleep(20_000)
                madeSinceStart = true
                continue
            }
            let store = PreferenceStore(database: database, suite: context.suite)
            let stream = store.changes()
            var printedThrough: Int64 = 0
            if madeSinceStart {
                // A file made (again) while watching: what was written before it was opened
                // here, oldest first; the stream then tells the rest.
                for change in try store.history(limit: 10_000).reversed() {
                    guard print(change, context) else { exit(0) }
                    printedThrough = max(printedThrough, change.id)
                }
            }
            try Self.requireSpareDescriptors(Self.descriptorsForTasks)
            let task = Task.detached { [printedThrough] in
                for await change in stream where change.id > printedThrough {
                    guard print(change, context) else { exit(0) }
                }
            }
            // Until another file is at the path (deleted and made again, or renamed over).
            while !isFile || held < 0 || Self.isSameFile(held, as: path) {
                usleep(100_000)
            }
            task.cancel()
            madeSinceStart = true
        }
    }

    /// Prints a change of a watched key as one line; false when stdout is closed.
    private func print(_ change: PreferenceChange, _ context: CommandContext) -> Bool {
        guard keys.isEmpty || keys.contains(where: { ExactName.sameBytes($0, change.key) }) else {
            return true
        }
        let line: String
        if context.globals.isJSON {
            line = JSONShapes.change(change).serialized(.spaced)
        } else if let value = change.value {
            line = "\(ValueText.listed(change.key))=\(ValueText.listed(value))"
        } else {
            line = "\(ValueText.listed(change.key)) (removed)"
        }
        return context.console.print(line + "\n")
    }

    /// Whether the file open as `descriptor` is still the one at `path`; false once it is
    /// deleted, whether or not another file is there yet.
    static func isSameFile(_ descriptor: Int32, as path: String) -> Bool {
        var held = stat()
        var current = stat()
        guard fstat(descriptor, &held) == 0, held.st_nlink > 0 else { return false }
        guard stat(path, &current) == 0 else { return false }
        return held.st_dev == current.st_dev && held.st_ino == current.st_ino
    }
}

extension WatchCommand {
    /// How many file descriptors the first task needs beyond those open: Swift's executor
    /// makes an eventfd and an epoll descriptor then, and stops the process with SIGILL
    /// when it cannot (under `ulimit -n 8`).
    static let descriptorsForTasks = 2

    /// The database, its `-wal` and `-shm` files, the inotify descriptor, and the file held
    /// open to tell when another file takes its place.
    static let descriptorsForFiles = 5

    /// Fails with one line and exit 71 unless `count` more descriptors can be opened: each
    /// is opened on /dev/null and closed again.
    static func requireSpareDescriptors(_ count: Int) throws(CommandFailure) {
        var opened: [Int32] = []
        defer { for descriptor in opened { close(descriptor) } }
        for _ in 0..<count {
            let descriptor = open("/dev/null", O_RDONLY | O_CLOEXEC)
            guard descriptor >= 0 else {
                let reason = String(cString: strerror(errno))
                var limit = rlimit()
                #if os(Linux)
                    let resource = __rlimit_resource_t(RLIMIT_NOFILE.rawValue)
                #else
                    let resource = RLIMIT_NOFILE
                #endif
                let allowed = getrlimit(resource, &limit) == 0 ? " of \(limit.rlim_cur)" : ""
                throw CommandFailure(
                    "Cannot watch: \(reason) (the limit\(allowed) leaves too few file descriptors;"
                        + " raise it with 'ulimit -n')", exitCode: CommandFailure.systemError)
            }
            opened.append(descriptor)
        }
    }

    init(parsing parsed: ParsedArguments) throws(UsageError) {
        self.init(keys: try parsed[Self.keys])
    }
}
