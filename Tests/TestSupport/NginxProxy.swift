import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Debian's nginx, started by the test from a configuration it is given (docs/deploy.md's),
/// with TLS from a CA the test made, on 127.0.0.1 only; stopped when the value goes and by a
/// watchdog when the test process ends.
public final class NginxProxy: @unchecked Sendable {
    public let port: Int
    public let folder: TemporaryFolder
    /// The test CA's certificate (PEM), for `--ca-file`.
    public let certificateAuthority: String
    private let process: ChildProcess

    /// Whether nginx and openssl are installed.
    public static var isInstalled: Bool {
        FileManager.default.isExecutableFile(atPath: "/usr/sbin/nginx")
            && FileManager.default.isExecutableFile(atPath: "/usr/bin/openssl")
    }

    /// The `nginx` block of docs/deploy.md in the repository at `root`: what the tests and
    /// the benchmark run, so that the page a user copies is the one that runs.
    public static func documentedConfiguration(repository root: URL) throws -> String {
        let text = try String(
            contentsOf: root.appendingPathComponent("docs/deploy.md"), encoding: .utf8)
        guard let start = text.range(of: "```nginx\n"),
            let end = text.range(of: "\n```", range: start.upperBound..<text.endIndex)
        else { throw PostgresServerError("docs/deploy.md has no nginx block") }
        return String(text[start.upperBound..<end.lowerBound])
    }

    /// A free port on 127.0.0.1 (the system's choice, released for the caller).
    public static func freePort() -> Int? {
        let socket = Foundation.socket(AF_INET, streamSocket, 0)
        guard socket >= 0 else { return nil }
        defer { close(socket) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var size = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(socket, $0, size) == 0 && getsockname(socket, $0, &size) == 0
            }
        }
        return bound ? Int(UInt16(bigEndian: address.sin_port)) : nil
    }

    /// Starts nginx from `configuration`, with `/etc/prefs/tls` and `/var/lib/prefs` made
    /// folders of its own and the ports given put in place of the document's.
    public init(configuration: String, ports: [String: Int]) throws {
        folder = try TemporaryFolder()
        let dir = folder.url.path
        guard let port = Self.freePort() else { throw PostgresServerError("no free port") }
        self.port = port
        certificateAuthority = dir + "/ca.crt"
        try Self.makeCertificates(in: dir)
        var text = configuration.replacingOccurrences(of: "/etc/prefs/tls", with: dir)
            .replacingOccurrences(of: "/var/lib/prefs", with: dir)
            .replacingOccurrences(of: "127.0.0.1:8443", with: "127.0.0.1:\(port)")
        for (documented, actual) in ports {
            text = text.replacingOccurrences(of: documented, with: "127.0.0.1:\(actual)")
        }
        // Workers run as the test's user (root in CI), which owns the key.
        if getuid() == 0 { text = "user root;\n" + text }
        let file = dir + "/nginx.conf"
        try text.write(toFile: file, atomically: true, encoding: .utf8)
        // The master leads a process group of its own, with its workers in it: the watchdog
        // ends them all (a worker's command line does not name the configuration). `kill
        // -KILL -PID`, not `kill -KILL -- -PID`: dash, Debian's sh, reads `--` as a process
        // id and kills nothing, and a `prefs-bench --https` that exits left nginx running.
        process = try ChildProcess(
            "/usr/sbin/nginx",
            ["-e", dir + "/startup-error.log", "-p", dir, "-c", file, "-g", "daemon off;"],
            newProcessGroup: true)
        let pid = process.pid
        // Only while the group's leader is still this nginx (its command names this
        // configuration): process numbers wrap, and a group of that number may be another's
        // by the time the test process ends.
        _ = PostgresServer.spawn([
            "/bin/sh", "-c",
            """
            while kill -0 \(getpid()) 2>/dev/null; do sleep 0.5; done
            case "$(ps -o args= -p \(pid) 2>/dev/null)" in
                *\(file)*) kill -KILL -\(pid) 2>/dev/null ;;
            esac
            """,
        ])
        let deadline = Date().addingTimeInterval(15)
        while Date() < deadline, process.isRunning {
            if let socket = RawHTTP.connect(port: port) {
                close(socket)
                return
            }
            usleep(20_000)
        }
        let log = (try? String(contentsOfFile: dir + "/nginx-error.log", encoding: .utf8)) ?? ""
        let startup =
            (try? String(contentsOfFile: dir + "/startup-error.log", encoding: .utf8)) ?? ""
        throw PostgresServerError("nginx did not start: \(startup) \(log)")
    }

    /// The master process's id.
    public var pid: Int32 { process.pid }

    /// `https://127.0.0.1:PORT`.
    public var url: String { "https://127.0.0.1:\(port)" }

    private static func makeCertificates(in dir: String) throws {
        let script = """
            set -e
            cd '\(dir)'
            openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes \
                -keyout ca.key -out ca.crt -days 2 -subj /CN=prefs-test-ca 2>/dev/null
            openssl req -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes \
                -keyout server.key -out server.csr -subj /CN=127.0.0.1 2>/dev/null
            printf 'subjectAltName=IP:127.0.0.1,DNS:localhost\\nbasicConstraints=CA:FALSE\\n' > ext
            openssl x509 -req -in server.csr -CA ca.crt -CAkey ca.key -CAcreateserial \
                -out server.crt -days 2 -extfile ext 2>/dev/null
            """
        let made = try runProcess(URL(fileURLWithPath: "/bin/sh"), ["-c", script])
        guard made.status == 0 else { throw PostgresServerError("openssl: \(made.stderr)") }
    }

    deinit {
        if process.isRunning {
            process.send(SIGTERM)
            let deadline = Date().addingTimeInterval(3)
            while process.isRunning, Date() < deadline { usleep(10_000) }
        }
        // Whatever is left of the group: the master if it did not stop, orphaned workers.
        kill(-process.pid, SIGKILL)
    }
}
