import Foundation

#if canImport(Glibc)
    import Glibc

    private let systemSocket = Glibc.socket
    private let systemConnect = Glibc.connect
    private let systemSend = Glibc.send
    let streamSocket = Int32(SOCK_STREAM.rawValue)
    private let noSignal = Int32(MSG_NOSIGNAL)
#elseif canImport(Darwin)
    import Darwin

    private let systemSocket = Darwin.socket
    private let systemConnect = Darwin.connect
    private let systemSend = Darwin.send
    let streamSocket = SOCK_STREAM
    private let noSignal: Int32 = 0
#endif

/// A `prefs-server` the test starts on 127.0.0.1 (a free port), in front of a hub; stopped
/// (SIGTERM, then SIGKILL) when the value goes, and by a watchdog when the test process ends
/// however it ended.
public final class SyncServerProcess: @unchecked Sendable {
    public let port: Int
    public let folder: TemporaryFolder
    public let process: ChildProcess
    /// Where its log lines go.
    public let logPath: String

    /// The built `prefs-server`, next to `prefs`.
    public static var executable: URL {
        prefsExecutable().deletingLastPathComponent().appendingPathComponent("prefs-server")
    }

    /// Starts it with `hub` (a service role's connection string) and any other flags.
    public init(hub: String, arguments: [String] = []) throws {
        folder = try TemporaryFolder()
        let portFile = folder.path("port")
        logPath = folder.path("server.log")
        _ = FileManager.default.createFile(atPath: logPath, contents: nil)
        process = try ChildProcess(
            Self.executable.path,
            ["serve", "--hub", hub, "--listen", "127.0.0.1:0", "--port-file", portFile] + arguments,
            stderr: .file(logPath))
        let pid = process.pid
        // Killed only while the number is still this server's (its port file names it):
        // process numbers wrap (32,768 here), and a number freed when the server stopped may
        // be another process's by the time the test process ends, such as the next test run.
        _ = PostgresServer.spawn([
            "/bin/sh", "-c",
            """
            while kill -0 \(getpid()) 2>/dev/null; do sleep 0.5; done
            case "$(ps -o args= -p \(pid) 2>/dev/null)" in
                *\(portFile)*) kill -KILL \(pid) 2>/dev/null ;;
            esac
            """,
        ])
        let deadline = Date().addingTimeInterval(30)
        var found: Int?
        while found == nil, Date() < deadline, process.isRunning {
            found = (try? String(contentsOfFile: portFile, encoding: .utf8)).flatMap {
                Int($0.trimmingCharacters(in: .whitespacesAndNewlines))
            }
            if found == nil { usleep(20_000) }
        }
        guard let found else {
            process.send(SIGTERM)
            let log = (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? ""
            throw PostgresServerError("prefs-server did not start: \(log)")
        }
        port = found
    }

    /// `http://127.0.0.1:PORT`.
    public var url: URL { URL(string: "http://127.0.0.1:\(port)")! }

    /// What it logged so far.
    public var log: String { (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? "" }

    /// SIGTERM, and the exit status once it stopped (nil: still running after 15 s).
    public func terminate() -> Int32? {
        process.send(SIGTERM)
        let deadline = Date().addingTimeInterval(15)
        while process.isRunning, Date() < deadline { usleep(10_000) }
        return process.exitStatus
    }

    /// SIGKILL, as a machine that goes away: nothing it held is answered.
    public func killNow() {
        process.send(SIGKILL)
        process.wait()
    }
}

/// Raw HTTP/1.1 over a socket to 127.0.0.1: for requests no well-behaved client sends (a path
/// with `..`, a 2 GB length it does not send, one byte a second).
public enum RawHTTP {
    /// A connected socket; nil when it cannot connect.
    public static func connect(port: Int) -> Int32? {
        let socket = systemSocket(AF_INET, streamSocket, 0)
        guard socket >= 0 else { return nil }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                systemConnect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else {
            close(socket)
            return nil
        }
        var timeout = timeval(tv_sec: 20, tv_usec: 0)
        setsockopt(
            socket, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        return socket
    }

    /// Sends the bytes; false when the peer closed.
    @discardableResult
    public static func send(_ socket: Int32, _ bytes: [UInt8]) -> Bool {
        var sent = 0
        while sent < bytes.count {
            let count = bytes[sent...].withUnsafeBytes {
                systemSend(socket, $0.baseAddress, $0.count, noSignal)
            }
            guard count > 0 else { return false }
            sent += count
        }
        return true
    }

    /// Reads until the peer closes or the time runs out: the status and the body.
    public static func readResponse(_ socket: Int32) -> (status: Int, body: String)? {
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = buffer.withUnsafeMutableBytes { recv(socket, $0.baseAddress, $0.count, 0) }
            if count <= 0 { break }
            received += buffer[0..<count]
            if let text = complete(received) { return text }
        }
        return complete(received, atEnd: true)
    }

    /// The response when all of it arrived (by its Content-Length).
    private static func complete(_ bytes: [UInt8], atEnd: Bool = false) -> (
        status: Int, body: String
    )? {
        let text = String(decoding: bytes, as: UTF8.self)
        guard let split = text.range(of: "\r\n\r\n") else { return nil }
        let head = text[..<split.lowerBound]
        let body = String(text[split.upperBound...])
        let parts = head.split(separator: " ", maxSplits: 2)
        guard parts.count >= 2, let status = Int(parts[1]) else { return nil }
        let length = head.split(separator: "\r\n").first {
            $0.lowercased().hasPrefix("content-length:")
        }.flatMap {
            Int($0.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces))
        }
        if let length, body.utf8.count >= length || atEnd { return (status, body) }
        return atEnd ? (status, body) : nil
    }

    /// One request on a new connection, and its response.
    public static func exchange(port: Int, _ request: String) -> (status: Int, body: String)? {
        guard let socket = connect(port: port) else { return nil }
        defer { close(socket) }
        guard send(socket, Array(request.utf8)) else { return nil }
        return readResponse(socket)
    }
}
