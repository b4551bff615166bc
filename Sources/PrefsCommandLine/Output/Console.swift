import PrefsKit

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Where a command reads and writes: the process's standard streams, or buffers in tests.
final class Console: @unchecked Sendable {
    // Unchecked: a command runs on one thread; `watch` writes from one task at a time.

    var output: (String) -> Bool
    /// Writes bytes to stdout exactly as they are (a binary property list is not text).
    var outputBytes: ([UInt8]) -> Bool
    var error: (String) -> Void
    var readInput: () -> [UInt8]?
    var readLine: () -> String?
    var isInputTerminal: Bool
    var isOutputTerminal: Bool
    var isErrorTerminal: Bool
    /// Reads an environment variable (the process's with `getenv`; a table in tests).
    var variable: (String) -> String?

    init(
        output: @escaping (String) -> Bool, outputBytes: @escaping ([UInt8]) -> Bool,
        error: @escaping (String) -> Void,
        readInput: @escaping () -> [UInt8]?, readLine: @escaping () -> String?,
        isInputTerminal: Bool, isOutputTerminal: Bool, isErrorTerminal: Bool,
        variable: @escaping (String) -> String?
    ) {
        self.output = output
        self.outputBytes = outputBytes
        self.isOutputTerminal = isOutputTerminal
        self.error = error
        self.readInput = readInput
        self.readLine = readLine
        self.isInputTerminal = isInputTerminal
        self.isErrorTerminal = isErrorTerminal
        self.variable = variable
    }

    /// The process's standard input, output and error.
    static func standard() -> Console {
        Console(
            output: { writeAll($0, to: 1) },
            outputBytes: { bytes in bytes.withUnsafeBufferPointer { writeAll($0, to: 1) } },
            error: { _ = writeAll($0, to: 2) },
            readInput: { readAll(from: 0) },
            readLine: { Swift.readLine() },
            isInputTerminal: isatty(0) == 1,
            isOutputTerminal: isatty(1) == 1,
            isErrorTerminal: isatty(2) == 1,
            variable: DatabaseLocation.variable)
    }

    /// Whether messages on stderr may use color: on a terminal, unless `NO_COLOR` is set to
    /// something (an empty `NO_COLOR` counts as unset, as no-color.org asks).
    var usesColor: Bool { isErrorTerminal && (variable("NO_COLOR") ?? "").isEmpty }

    /// Writes data to stdout; false when stdout is closed.
    @discardableResult
    func print(_ text: String) -> Bool { output(text) }

    /// Writes a line to stderr.
    func message(_ text: String) { error(text + "\n") }

    /// Writes an error line to stderr, `Error:` in red on a color terminal.
    func printError(_ text: String) {
        let label = usesColor ? "\u{1B}[1;31mError:\u{1B}[0m" : "Error:"
        error("\(label) \(text)\n")
    }

    private static func writeAll(_ text: String, to descriptor: Int32) -> Bool {
        FileDescriptor.writeAll(text, to: descriptor) == 0
    }

    private static func writeAll(_ buffer: UnsafeBufferPointer<UInt8>, to descriptor: Int32) -> Bool
    {
        FileDescriptor.writeAll(UnsafeRawBufferPointer(buffer), to: descriptor) == 0
    }

    private static func readAll(from descriptor: Int32) -> [UInt8]? {
        try? FileDescriptor.readAll(from: descriptor).get()
    }
}
