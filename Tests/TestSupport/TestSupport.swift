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
/// it `stdin` and collecting its output (stdin is written, and stdout and stderr are read,
/// all at once, so no pipe can fill up and stall the child). Started by `ChildProcess`, not
/// Foundation's `Process`.
public func runProcess(
    _ executable: URL, _ arguments: [String], environment: [String: String] = [:],
    stdin: String? = nil
) throws -> ProcessOutput {
    let child = try ChildProcess(
        executable.path, arguments, environment: environment, stdin: .pipe, stdout: .pipe,
        stderr: .pipe)
    let written = DispatchSemaphore(value: 0)
    DispatchQueue.global().async {
        child.finishInput(Array((stdin ?? "").utf8))
        written.signal()
    }
    let (output, errors) = child.readToEnd()
    written.wait()
    return ProcessOutput(
        status: child.wait(), stdout: String(decoding: output, as: UTF8.self),
        stderr: String(decoding: errors, as: UTF8.self))
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
    /// Debian's Chromium, run headless to render what the tests draw.
    public static let chromium = isExecutable("/usr/bin/chromium")
    /// curl, which docs/deploy.md fetches the funnel's picture with.
    public static let curl = isExecutable("/usr/bin/curl")

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
