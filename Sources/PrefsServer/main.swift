// prefs-server: the sync protocol over HTTP (docs/sync-protocol.md) in front of a PostgreSQL
// hub, and the device tokens that open it. What a request does is PrefsSyncServer's; this
// file starts it, reads the flags, and stops on a signal. TLS and load balancing are
// nginx's, in front (docs/deploy.md).
import Dispatch
import PrefsKit
import PrefsSync
import PrefsSyncServer
import PrefsTool

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

func put(_ text: String, to descriptor: Int32) {
    var bytes = Array(text.utf8)
    _ = bytes.withUnsafeMutableBytes { write(descriptor, $0.baseAddress, $0.count) }
}

func fail(_ message: String, _ code: Int32) -> Never {
    put("prefs-server: " + message + "\n", to: 2)
    exit(code)
}

/// An error as one line and the exit code `prefs` gives the same failure.
func fail(_ error: any Error) -> Never {
    switch error {
    case let error as DatabaseError: fail(error.description, error.exitCode)
    case let error as SyncError: fail(error.description, ExitCode.usage)
    case let error as HTTPDaemon.StartFailure: fail(error.description, ExitCode.systemError)
    default: fail(String(describing: error), ExitCode.software)
    }
}

/// The operator's warnings (ServerWarnings), once the command has done what it was told: a
/// command that fails says one line, its error.
func warn(listeningOn address: String?) {
    for warning in ServerWarnings.of(
        Array(CommandLine.arguments.dropFirst()), listeningOn: address,
        effectiveUserID: geteuid())
    {
        put("prefs-server: warning: " + warning + "\n", to: 2)
    }
}

/// The service token in `path`: a regular file of one line of 32 to 1,024 visible
/// characters; anything else stops the server with one line (66 for a file that cannot be
/// read, 64 for one that is not a token).
func serviceToken(fromFile path: String) -> String {
    let descriptor = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
    guard descriptor >= 0 else {
        fail(
            "cannot read the service token file \(path): \(String(cString: strerror(errno)))",
            ExitCode.noInput)
    }
    defer { close(descriptor) }
    var status = stat()
    guard fstat(descriptor, &status) == 0, (status.st_mode & S_IFMT) == S_IFREG else {
        fail("the service token file \(path) is not a regular file", ExitCode.noInput)
    }
    var bytes = [UInt8](repeating: 0, count: 1_100)
    let count = bytes.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
    guard count >= 0 else {
        fail("cannot read the service token file \(path)", ExitCode.noInput)
    }
    var token = bytes[0..<count]
    while let last = token.last, last == 0x0A || last == 0x0D { token.removeLast() }
    guard (32...1_024).contains(token.count), token.allSatisfy({ (0x21...0x7E).contains($0) })
    else {
        fail(
            "the service token file \(path) must hold one line of 32 to 1024 visible"
                + " characters", ExitCode.usage)
    }
    return String(decoding: token, as: UTF8.self)
}

func serve(_ flags: ServerCommandLine.Serve) -> Never {
    var configuration = SyncServer.Configuration(hub: flags.hub)
    configuration.poolSize = flags.poolSize
    configuration.maxBodyBytes = flags.maxBodyBytes
    configuration.maxChanges = flags.maxChanges
    configuration.maxLongPollsPerToken = flags.maxPollsPerToken
    configuration.pullLimit = SyncPullLimit(
        changes: flags.maxPullChanges, bytes: flags.maxPullBytes)
    configuration.notificationHub = flags.notificationHub
    if let file = flags.serviceTokenFile {
        configuration.serviceToken = serviceToken(fromFile: file)
    }
    var limits = HTTPDaemon.Limits()
    limits.connections = flags.connectionLimit
    limits.timeoutSeconds = flags.timeoutSeconds
    limits.headerSeconds = flags.headerTimeoutSeconds
    limits.maxBodyBytes = flags.maxBodyBytes
    // Room for a header of the protocol's limit and more; longer ones get a JSON refusal.
    limits.headerMemory = configuration.maxHeaderBytes * 2 + (64 << 10)
    let server: SyncServer
    let daemon: HTTPDaemon
    do {
        server = try SyncServer(configuration) { line in put(line, to: 2) }
        try server.prepare()
        daemon = try HTTPDaemon(
            router: server.router, workers: server.workers, address: flags.address,
            port: flags.port, limits: limits)
    } catch {
        fail(error)
    }
    if let file = flags.portFile {
        guard FileManager.default.createFile(atPath: file, contents: Data("\(daemon.port)\n".utf8))
        else { fail("cannot write the port to \(file)", ExitCode.cannotCreate) }
    }
    put("prefs-server: listening on \(flags.address):\(daemon.port)\n", to: 2)
    warn(listeningOn: flags.address)
    // SIGTERM and SIGINT: no new connections; those open finish (10 s at most); then stop.
    signal(SIGTERM, SIG_IGN)
    signal(SIGINT, SIG_IGN)
    let stopping = DispatchSemaphore(value: 0)
    let sources = [SIGTERM, SIGINT].map { number -> any DispatchSourceSignal in
        let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
        source.setEventHandler { stopping.signal() }
        source.resume()
        return source
    }
    stopping.wait()
    daemon.quiesce()
    // Long polls answer now (with the position they have), so that the requests in flight
    // finish well within the 10 s.
    server.finishLongPolls()
    put("prefs-server: stopping; finishing the requests in flight\n", to: 2)
    let deadline = ContinuousClock.now + .seconds(10)
    while daemon.openConnections > 0, ContinuousClock.now < deadline { usleep(20_000) }
    daemon.stop()
    withExtendedLifetime(sources) {}
    put("prefs-server: stopped\n", to: 2)
    exit(0)
}

let command: ServerCommandLine.Command
do {
    command = try ServerCommandLine.parse(
        Array(CommandLine.arguments.dropFirst()), environment: ProcessInfo.processInfo.environment)
} catch {
    fail(error.description + " (prefs-server --help shows the usage)", ExitCode.usage)
}
do {
    let output: TokenCommands.Output
    switch command {
    case .help:
        put(ServerCommandLine.usage + "\n", to: 1)
        exit(0)
    case .serve(let flags):
        serve(flags)
    case .issueToken(let account, let name, let hub):
        output = try TokenCommands.issue(account: account, name: name, hub: hub)
    case .listTokens(let account, let hub, let json):
        output = try TokenCommands.list(account: account, hub: hub, json: json)
    case .revokeToken(let id, let account, let hub):
        guard let revoked = try TokenCommands.revoke(id: id, account: account, hub: hub) else {
            fail("the account '\(account)' has no open token \(id)", ExitCode.dataError)
        }
        output = revoked
    }
    put(output.standardOutput, to: 1)
    put(output.standardError, to: 2)
    warn(listeningOn: nil)
} catch {
    fail(error)
}
