import Foundation
import PrefsCommandLine
import PrefsKit
import PrefsPostgreSQL
import PrefsSync
import TestSupport

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// `prefs-bench --watchers N`: N devices waiting in a long poll (`GET /v1/changes`, what
/// `prefs sync --watch` sends) on one prefs-server, straight to it (no nginx: the server's
/// own cost). Reports the server's threads and peak memory while they wait, how long a
/// normal request takes meanwhile against none waiting, and, for each of a few writes, when
/// each device heard it (median, p99, last) with the server's CPU for the wake-up.
struct WatcherWorkloads {
    let server: PostgresServer
    let database: String
    let instance: SyncServerProcess
    let devices: Int

    init(devices: Int) throws {
        self.devices = devices
        (server, database) = try PostgresServer.syncHub()
        instance = try SyncServerProcess(
            hub: server.target(database: database, user: "sync_service"),
            arguments: [
                "--connection-limit", String(devices + 100), "--max-polls-per-token", "1000",
            ])
    }

    private func hub() throws -> AppDatabase {
        var options = PostgreSQLOptions()
        options.account = "crowd"
        options.watchesForChanges = false
        return try AppDatabase.postgreSQL(
            server.target(database: database, user: "sync_service"), options: options)
    }

    /// The server's `Threads:`, `VmHWM:` (peak resident memory, kB) and `VmRSS:` (now).
    private func status() -> (threads: Int, peakKB: Int, residentKB: Int) {
        #if os(Linux)
            let text =
                (try? String(
                    contentsOfFile: "/proc/\(instance.process.pid)/status", encoding: .utf8))
                ?? ""
        #else
            let text = ""
        #endif
        func field(_ name: String) -> Int {
            text.split(separator: "\n").first { $0.hasPrefix(name + ":") }.flatMap {
                Int(
                    $0.dropFirst(name.count + 1).trimmingCharacters(in: .whitespaces)
                        .split(separator: " ").first ?? "")
            } ?? -1
        }
        return (field("Threads"), field("VmHWM"), field("VmRSS"))
    }

    private func serverCPU() -> Double { ProcessTimes(pid: instance.process.pid)?.seconds ?? .nan }

    private func hubCPU() -> Double { ProcessTimes.ofServer(server) }

    private func exchange(_ request: String) -> (status: Int, body: String)? {
        RawHTTP.exchange(port: instance.port, request)
    }

    private func position(_ token: String) -> Int? {
        guard
            let answer = exchange(
                "GET /v1/account HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer \(token)\r\n"
                    + "Connection: close\r\n\r\n"),
            let object = try? JSONSerialization.jsonObject(with: Data(answer.body.utf8))
                as? [String: Any]
        else { return nil }
        return object["position"] as? Int
    }

    /// Milliseconds of `GET /v1/account`, `count` times one after another.
    private func accountRequests(_ token: String, count: Int) -> [Double] {
        (0..<count).map { _ in
            let started = ContinuousClock.now
            _ = position(token)
            return milliseconds(ContinuousClock.now - started)
        }
    }

    private func milliseconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) * 1000
            + Double(duration.components.attoseconds) / 1e15
    }

    /// One device's poll from `position`, on a new connection.
    private func startPoll(_ index: Int, _ tokens: [String], after position: Int) throws -> Int32 {
        guard let socket = RawHTTP.connect(port: instance.port) else {
            throw BenchmarkError(description: "connection \(index) was refused")
        }
        RawHTTP.send(
            socket,
            Array(
                ("GET /v1/changes?after=\(position)&wait=25000 HTTP/1.1\r\nHost: x\r\n"
                    + "Authorization: Bearer \(tokens[index % tokens.count])\r\n"
                    + "Connection: close\r\n\r\n").utf8))
        return socket
    }

    /// Opens the devices' polls from `position`, 2,000 a second (all of one account, whose
    /// reads hold at most its share of the hub's connections at once).
    private func openPolls(
        _ tokens: [String], after position: Int, into sockets: inout [Int32]
    ) throws {
        sockets = []
        for index in 0..<devices {
            sockets.append(try startPoll(index, tokens, after: position))
            if index % 100 == 99 { usleep(50_000) }
        }
        _ = try reopenAnswered(tokens, after: position, in: &sockets)
    }

    /// Polls answered before any write (503 when the account held its share of the hub's
    /// connections that moment, or a poll's 25 s ran out) ask again, as a client does, until
    /// none is; returns how many asked again.
    private func reopenAnswered(
        _ tokens: [String], after position: Int, in sockets: inout [Int32]
    ) throws -> Int {
        var last = ""
        var again = 0
        for _ in 0..<40 {
            usleep(500_000)
            var sets = sockets.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
            guard poll(&sets, nfds_t(sets.count), 0) > 0 else { return again }
            for (index, set) in sets.enumerated() where set.revents != 0 {
                let early = RawHTTP.readResponse(sockets[index])
                last = early.map { "\($0.status) \($0.body)" } ?? "no answer"
                close(sockets[index])
                sockets[index] = try startPoll(index, tokens, after: position)
                again += 1
            }
        }
        throw BenchmarkError(
            description: "the polls kept being answered before any write (the last: \(last))")
    }

    /// Milliseconds from `start` until each socket's answer was whole (the server closed),
    /// and how many answers were a 200 with a position past `position`.
    private func answers(
        _ sockets: [Int32], since start: ContinuousClock.Instant, position: Int
    ) -> (times: [Double], moved: Int) {
        var times = [Double?](repeating: nil, count: sockets.count)
        var texts = [String](repeating: "", count: sockets.count)
        var open = Array(sockets.indices)
        var buffer = [UInt8](repeating: 0, count: 4096)
        while !open.isEmpty, ContinuousClock.now - start < .seconds(30) {
            var sets = open.map { pollfd(fd: sockets[$0], events: Int16(POLLIN), revents: 0) }
            guard poll(&sets, nfds_t(sets.count), 500) > 0 else { continue }
            var still: [Int] = []
            for (slot, set) in sets.enumerated() {
                let index = open[slot]
                guard set.revents != 0 else {
                    still.append(index)
                    continue
                }
                let count = buffer.withUnsafeMutableBytes {
                    recv(sockets[index], $0.baseAddress, $0.count, 0)
                }
                if count > 0 {
                    texts[index] += String(decoding: buffer[0..<count], as: UTF8.self)
                    still.append(index)
                } else {
                    times[index] = milliseconds(ContinuousClock.now - start)
                }
            }
            open = still
        }
        let moved = texts.filter {
            $0.hasPrefix("HTTP/1.1 200") && !$0.hasSuffix(#""position":\#(position)}"#)
        }.count
        return (times.map { $0 ?? .infinity }, moved)
    }

    /// Runs `writes` writes with every device waiting, and returns the report's lines.
    func run(writes: Int) throws -> String {
        let tokens = try (0..<max(1, (devices + 999) / 1000)).map {
            try DeviceTokens.issue(on: try hub(), name: "watcher\($0)").token
        }
        let writer = try DeviceTokens.issue(on: try hub(), name: "writer").token
        let folder = try TemporaryFolder()
        let phone = try AppDatabase(path: folder.path("writer.db"))
        let sync = try DeviceSync(
            database: phone,
            connector: HTTPHubConnector(
                transport: CurlTransport(
                    server: instance.url.absoluteString, certificateAuthorityFile: nil),
                token: writer),
            account: nil)
        try sync.sync()
        let quiet = accountRequests(writer, count: 200)
        var lines: [String] = []
        func percentile(_ values: [Double], _ share: Double) -> Double {
            let sorted = values.sorted()
            return sorted[min(sorted.count - 1, Int(Double(sorted.count - 1) * share))]
        }
        let before = status()
        lines.append(
            "prefs-server before the devices: \(before.threads) threads, peak RSS"
                + " \(before.peakKB / 1024) MB")
        for write in 0..<writes {
            guard let now = position(writer) else {
                throw BenchmarkError(description: "the account's position could not be read")
            }
            var sockets: [Int32] = []
            defer { for socket in sockets { close(socket) } }
            let arrivalCPU = (serverCPU(), hubCPU())
            try openPolls(tokens, after: now, into: &sockets)
            let arrival = (serverCPU() - arrivalCPU.0, hubCPU() - arrivalCPU.1)
            // The workers that took the polls in idle out (10 s after their last work).
            let settling = ContinuousClock.now
            // (15 s at most: the polls wait 25 s.)
            while status().threads > 16, ContinuousClock.now - settling < .seconds(15) {
                Thread.sleep(forTimeInterval: 0.5)
            }
            let waiting = status()
            // Any poll whose 25 s ran out meanwhile asks again before the write.
            let renewed = try reopenAnswered(tokens, after: now, in: &sockets)
            let busy = accountRequests(writer, count: 200)
            let cpuBefore = serverCPU()
            let hubBefore = hubCPU()
            try PreferenceStore(database: phone).setValue(.int(write), forKey: "counter")
            let pushed = ContinuousClock.now
            try sync.sync()
            let (heard, moved) = answers(sockets, since: pushed, position: now)
            let cpu = serverCPU() - cpuBefore
            let hub = hubCPU() - hubBefore
            let woken = status()
            let late = heard.filter { !$0.isFinite }.count
            lines.append(
                String(
                    format:
                        "write %d: %d devices waiting: %d threads, RSS %d MB (peak %d MB) (%d asked"
                        + " again just before the write); heard after"
                        + " median %.0f ms, p99 %.0f ms, last %.0f ms (%d not at all, %d with the new"
                        + " position); server CPU"
                        + " %.0f ms for the round and the wake-up (%.1f us a device), the hub's"
                        + " %.0f ms; taking the polls in (with the retries): the server's CPU %.1f"
                        + " us a device, the hub's %.1f us;"
                        + " GET /v1/account meanwhile median %.2f ms, p99 %.2f ms (none waiting:"
                        + " %.2f ms, %.2f ms); once all were answered: %d threads, RSS %d MB (peak"
                        + " %d MB)",
                    write + 1, devices, waiting.threads, waiting.residentKB / 1024,
                    waiting.peakKB / 1024, renewed,
                    percentile(heard, 0.5), percentile(heard, 0.99),
                    heard.filter(\.isFinite).max() ?? .nan, late, moved, cpu * 1000,
                    cpu * 1e6 / Double(devices), hub * 1000, arrival.0 * 1e6 / Double(devices),
                    arrival.1 * 1e6 / Double(devices), percentile(busy, 0.5),
                    percentile(busy, 0.99),
                    percentile(quiet, 0.5), percentile(quiet, 0.99), woken.threads,
                    woken.residentKB / 1024, woken.peakKB / 1024))
        }
        Thread.sleep(forTimeInterval: 12)
        let after = status()
        lines.append(
            "prefs-server after the writes, idle: \(after.threads) threads, RSS"
                + " \(after.residentKB / 1024) MB (peak \(after.peakKB / 1024) MB)")
        return lines.joined(separator: "\n") + "\n"
    }
}
