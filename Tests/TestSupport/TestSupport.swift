import Foundation

/// A unique temporary folder per test, removed when the value is dropped.
public final class TemporaryFolder: @unchecked Sendable {
    public let url: URL

    public init() throws {
        url = FileManager.default.temporaryDirectory
            .appendingPathComponent("prefs-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    deinit {
        try? FileManager.default.removeItem(at: url)
    }

    public func path(_ name: String) -> String {
        url.appendingPathComponent(name).path
    }
}

/// The built `prefs` executable, next to the test bundle, or the one `PREFS_EXECUTABLE`
/// names (`.ci/run` runs the command-line suites again against the static install file).
public func prefsExecutable() -> URL {
    if let path = ProcessInfo.processInfo.environment["PREFS_EXECUTABLE"], !path.isEmpty {
        return URL(fileURLWithPath: path)
    }
    var folder = Bundle.main.bundleURL
    if folder.pathExtension == "xctest" { folder.deleteLastPathComponent() }
    let candidates = [
        folder.appendingPathComponent("prefs"),
        folder.deletingLastPathComponent().appendingPathComponent("prefs"),
    ]
    return candidates.first { FileManager.default.isExecutableFile(atPath: $0.path) }
        ?? candidates[0]
}

public struct ProcessOutput: Sendable {
    public let status: Int32
    public let stdout: String
    public let stderr: String

    public init(status: Int32, stdout: String, stderr: String) {
        self.status = status
        self.stdout = stdout
        self.stderr = stderr
    }
}

/// Runs the `prefs` executable to completion, with `NO_COLOR` set unless `environment`
/// says otherwise.
@discardableResult
public func runPrefs(
    _ arguments: [String], environment: [String: String] = [:], stdin: String? = nil
) throws -> ProcessOutput {
    try runProcess(
        prefsExecutable(), arguments, environment: ["NO_COLOR": "1"].merging(environment) { $1 },
        stdin: stdin)
}

/// Runs a program to completion with this process's environment plus `environment`, feeding
/// it `stdin` and collecting its output (stderr is drained alongside stdout, so neither
/// pipe can fill up and stall the child).
public func runProcess(
    _ executable: URL, _ arguments: [String], environment: [String: String] = [:],
    stdin: String? = nil
) throws -> ProcessOutput {
    let process = Process()
    process.executableURL = executable
    process.arguments = arguments
    process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
    let output = Pipe()
    let errors = Pipe()
    let input = Pipe()
    process.standardOutput = output
    process.standardError = errors
    process.standardInput = input
    try process.run()
    let errorData = SharedData()
    let drained = DispatchSemaphore(value: 0)
    DispatchQueue.global().async {
        errorData.value = errors.fileHandleForReading.readDataToEndOfFile()
        drained.signal()
    }
    if let stdin { input.fileHandleForWriting.write(Data(stdin.utf8)) }
    try input.fileHandleForWriting.close()
    let outData = output.fileHandleForReading.readDataToEndOfFile()
    drained.wait()
    process.waitUntilExit()
    return ProcessOutput(
        status: process.terminationStatus,
        stdout: String(decoding: outData, as: UTF8.self),
        stderr: String(decoding: errorData.value, as: UTF8.self))
}

/// Bytes handed from the thread that reads them to the one that waits for them.
private final class SharedData: @unchecked Sendable {
    private let lock = NSLock()
    private var stored = Data()
    var value: Data {
        get { lock.withLock { stored } }
        set { lock.withLock { stored = newValue } }
    }
}

/// Whether a tool the tests drive is on this machine: a test that needs a missing one is
/// reported as skipped with the reason (`@Test(.enabled(if: Installed.zsh, "..."))`), never
/// as passed.
public enum Installed {
    public static let bash = isExecutable("/bin/bash")
    public static let zsh = isExecutable("/usr/bin/zsh")
    public static let fish = isExecutable("/usr/bin/fish")
    /// util-linux's `script`, which gives a shell a terminal.
    public static let script = isExecutable("/usr/bin/script")
    /// libfaketime's `faketime`, which runs a program with its clock moved.
    public static let faketime = isExecutable("/usr/bin/faketime")

    /// Whether the shell of that name is installed.
    public static func shell(_ name: String) -> Bool {
        switch name {
        case "bash": bash
        case "zsh": zsh
        case "fish": fish
        default: false
        }
    }

    private static func isExecutable(_ path: String) -> Bool {
        FileManager.default.isExecutableFile(atPath: path)
    }
}
