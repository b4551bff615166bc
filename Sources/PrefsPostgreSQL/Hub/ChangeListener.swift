import Dispatch
internal import PostgresCore
import PrefsKit
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// One connection per server that listens on the channels of the accounts whose devices
/// wait in a long poll (`GET /v1/changes`), and wakes them when their account changes: a
/// waiting device costs an entry here (and, in prefs-server, a parked answer: no thread),
/// not a query every few milliseconds. The connection is
/// a session of its own, straight to the server (a transaction pooler would not keep its
/// `LISTEN`), touched by the listening thread only.
package final class ChangeListener: @unchecked Sendable {
    /// A device waiting for its account's channel.
    package final class Waiter: @unchecked Sendable {
        let channel: String
        package let woken = DispatchSemaphore(value: 0)
        private let onWake: @Sendable () -> Void

        init(channel: String, onWake: @escaping @Sendable () -> Void) {
            self.channel = channel
            self.onWake = onWake
        }

        /// Signals `woken` and calls the waiter's own wake-up.
        func wake() {
            woken.signal()
            onWake()
        }
    }

    private struct State {
        /// The waiters of each channel.
        var waiters: [String: [ObjectIdentifier: Waiter]] = [:]
        /// Channels listened to on the connection.
        var listening: Set<String> = []
        /// Told once the channel is listened to: a waiter reads the position after that.
        var confirmations: [String: [DispatchSemaphore]] = [:]
        var isRunning = false
    }

    private let target: String
    private let state = Mutex(State())
    /// A pipe whose write end wakes the listening thread for a new channel: it waits on the
    /// server's socket without a timeout to poll by.
    private let wakePipe: (read: Int32, write: Int32)

    package init(target: String) {
        self.target = target
        var ends: [Int32] = [-1, -1]
        if pipe(&ends) == 0 {
            _ = fcntl(ends[0], F_SETFL, fcntl(ends[0], F_GETFL) | O_NONBLOCK)
            _ = fcntl(ends[1], F_SETFL, fcntl(ends[1], F_GETFL) | O_NONBLOCK)
        }
        wakePipe = (ends[0], ends[1])
    }

    /// Registers a waiter on the channel and returns once the channel is listened to (or
    /// after a second, when the listener cannot reach the server: the waiter then wakes at
    /// its time). Each time the channel is notified, the waiter's `woken` is signalled and
    /// `onWake` called (on the listening thread: it must not wait).
    package func register(channel: String, onWake: @escaping @Sendable () -> Void = {}) -> Waiter {
        let waiter = Waiter(channel: channel, onWake: onWake)
        let confirmed = DispatchSemaphore(value: 0)
        let start = state.withLock { state -> Bool in
            state.waiters[channel, default: [:]][ObjectIdentifier(waiter)] = waiter
            if state.listening.contains(channel) {
                confirmed.signal()
            } else {
                state.confirmations[channel, default: []].append(confirmed)
            }
            defer { state.isRunning = true }
            return !state.isRunning
        }
        if start {
            DispatchQueue(label: "prefs-server.listener").async { [weak self] in self?.run() }
        } else {
            var byte: UInt8 = 1
            _ = write(wakePipe.write, &byte, 1)
        }
        _ = confirmed.wait(timeout: .now() + .seconds(1))
        return waiter
    }

    package func unregister(_ waiter: Waiter) {
        state.withLock { state in
            state.waiters[waiter.channel]?[ObjectIdentifier(waiter)] = nil
        }
    }

    /// The listening thread: takes the new channels up, waits on the socket, wakes the
    /// waiters of each channel notified. A lost connection is opened again; its waiters
    /// are woken (they read the position, and wait again if it did not move).
    private func run() {
        var connection: PGConnection?
        while true {
            do {
                let open = try connection ?? PGConnection(target)
                connection = open
                try listenToNewChannels(open)
                // The server's socket and the wake pipe; a second at most, so that a pipe
                // that could not be made still lets new channels in.
                var descriptors = [
                    pollfd(fd: open.socket, events: Int16(POLLIN), revents: 0),
                    pollfd(fd: wakePipe.read, events: Int16(POLLIN), revents: 0),
                ]
                _ = poll(&descriptors, wakePipe.read >= 0 ? 2 : 1, 1_000)
                var drained = [UInt8](repeating: 0, count: 64)
                while wakePipe.read >= 0, read(wakePipe.read, &drained, drained.count) > 0 {}
                for channel in try open.takeNotifiedChannels() { wake(channel) }
            } catch {
                connection = nil
                state.withLock { state in
                    state.listening = []
                    for waiters in state.waiters.values {
                        for waiter in waiters.values { waiter.wake() }
                    }
                }
                usleep(200_000)
            }
        }
    }

    private func listenToNewChannels(_ connection: PGConnection) throws {
        // A channel no one waits for any more leaves the set at once: a waiter that comes
        // for it meanwhile waits for it to be listened to again.
        let (wanted, stale) = state.withLock { state -> ([String], [String]) in
            let waited = Set(state.waiters.filter { !$0.value.isEmpty }.keys)
            state.waiters = state.waiters.filter { !$0.value.isEmpty }
            let stale = state.listening.subtracting(waited)
            state.listening.subtract(stale)
            return (Array(waited.subtracting(state.listening)), Array(stale))
        }
        for channel in wanted {
            try connection.execute("LISTEN " + PGConnection.quotedIdentifier(channel))
        }
        for channel in stale {
            try connection.execute("UNLISTEN " + PGConnection.quotedIdentifier(channel))
        }
        guard !wanted.isEmpty else { return }
        state.withLock { state in
            state.listening.formUnion(wanted)
            for channel in wanted {
                for confirmation in state.confirmations.removeValue(forKey: channel) ?? [] {
                    confirmation.signal()
                }
            }
        }
    }

    /// Wakes every waiter, of every channel (the server is stopping).
    package func wakeAll() {
        state.withLock { state in
            for waiters in state.waiters.values {
                for waiter in waiters.values { waiter.wake() }
            }
        }
    }

    private func wake(_ channel: String) {
        state.withLock { state in
            guard let waiters = state.waiters[channel] else { return }
            for waiter in waiters.values { waiter.wake() }
        }
    }
}
