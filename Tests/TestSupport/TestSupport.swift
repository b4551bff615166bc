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

/// The built `prefs` executable, next to the test bundle.
public func prefsExecutable() -> URL {
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

/// Runs the `prefs` executable to completion.
@discardableResult
public func runPrefs(
    _ arguments: [String], environment: [String: String] = [:], stdin: String? = nil
) throws -> ProcessOutput {
    let process = Process()
    process.executableURL = prefsExecutable()
    process.arguments = arguments
    var env = ProcessInfo.processInfo.environment
    env["NO_COLOR"] = "1"
    for (key, value) in environment { env[key] = value }
    process.environment = env
    let output = Pipe()
    let errors = Pipe()
    let input = Pipe()
    process.standardOutput = output
    process.standardError = errors
    process.standardInput = input
    try process.run()
    if let stdin { input.fileHandleForWriting.write(Data(stdin.utf8)) }
    try input.fileHandleForWriting.close()
    let outData = output.fileHandleForReading.readDataToEndOfFile()
    let errData = errors.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return ProcessOutput(
        status: process.terminationStatus,
        stdout: String(decoding: outData, as: UTF8.self),
        stderr: String(decoding: errData, as: UTF8.self))
}
