internal import CMicroHTTPD

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// GNU libmicrohttpd serving a ``Router``: one thread per connection; each complete
/// request (its body gathered by the C part, Sources/CMicroHTTPD) goes to the router, and
/// its answer back.
package final class HTTPDaemon: @unchecked Sendable {
    /// Why it could not start.
    package struct StartFailure: Error, CustomStringConvertible {
        package var description: String
    }

    /// What the daemon's limits are.
    package struct Limits: Sendable {
        package var connections = 1024
        /// Seconds a connection may stay silent before it is closed.
        package var timeoutSeconds = 30
        /// Seconds a request has to send all its headers, however slowly its bytes come
        /// (a connection kept alive: from the end of its previous request).
        package var headerSeconds = 10
        package var maxBodyBytes = 16 << 20
        /// Memory for one connection's headers.
        package var headerMemory = 192 << 10

        package init() {}
    }

    private let router: Router
    private var daemon: OpaquePointer?
    /// The context the C callback gets: this object, kept alive until ``stop()``.
    private var context: Unmanaged<HTTPDaemon>?

    /// Listens on `address` (IPv4 or IPv6 text, brackets allowed) and `port` (0: any free).
    package init(router: Router, address: String, port: UInt16, limits: Limits) throws {
        self.router = router
        var host = address
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        let context = Unmanaged.passRetained(self)
        let handler: prefs_http_handler = { context, request in
            guard let context, let request else { return 0 }
            return Unmanaged<HTTPDaemon>.fromOpaque(context).takeUnretainedValue().handle(request)
                ? 1 : 0
        }
        guard
            let daemon = prefs_http_start(
                host, port, UInt32(limits.connections), UInt32(limits.timeoutSeconds),
                UInt32(limits.headerSeconds), limits.maxBodyBytes, limits.headerMemory, handler,
                context.toOpaque())
        else {
            context.release()
            // libmicrohttpd sets errno for what the system refused only.
            let reason =
                [EADDRINUSE, EACCES, EADDRNOTAVAIL, EMFILE, ENFILE, EINVAL].contains(errno)
                ? String(cString: strerror(errno)) : "libmicrohttpd could not start"
            throw StartFailure(description: "cannot listen on \(address):\(port): \(reason)")
        }
        self.daemon = daemon
        self.context = context
    }

    /// The port it listens on (after port 0: the one the system gave).
    package var port: UInt16 { daemon.map { prefs_http_port($0) } ?? 0 }

    /// Stops taking connections; those open go on.
    package func quiesce() {
        if let daemon { prefs_http_quiesce(daemon) }
    }

    /// How many connections are open.
    package var openConnections: Int { daemon.map { Int(prefs_http_connections($0)) } ?? 0 }

    /// Closes every connection and stops.
    package func stop() {
        guard let daemon else { return }
        prefs_http_stop(daemon)
        self.daemon = nil
        context?.release()
        context = nil
    }

    /// Answers the request; false for headers whose body is to be read.
    private func handle(_ raw: UnsafePointer<prefs_http_request>) -> Bool {
        let request = raw.pointee
        let connection = request.connection
        var parsed = HTTPRequest(
            method: String(cString: request.method), path: String(cString: request.url),
            query: { key in prefs_http_query(connection, key).map { String(cString: $0) } },
            header: { name in prefs_http_header(connection, name).map { String(cString: $0) } },
            body: request.body.map {
                Array(UnsafeBufferPointer(start: $0, count: request.body_length))
            } ?? [])
        parsed.isBodyTooLarge = request.body_too_large != 0
        parsed.largestHeader = request.largest_header
        parsed.peer = request.peer.map { String(cString: $0) }
        parsed.isHeadersOnly = request.headers_only != 0
        parsed.isBadlyFramed = request.badly_framed != 0
        parsed.verifiedAccount = request.note.map { String(cString: $0) }
        let response = router.respond(to: parsed)
        if parsed.isHeadersOnly, response.status == HTTPResponse.proceed.status {
            if let account = response.account { prefs_http_note(raw, account) }
            return false
        }
        let answer = response.body.withUnsafeBytes { bytes in
            prefs_http_response("application/json", bytes.baseAddress, bytes.count)
        }
        guard let answer else { return true }
        for (name, value) in response.headers {
            _ = prefs_http_response_header(answer, name, value)
        }
        // Nothing after a request whose length is unclear is read as another request.
        if parsed.isBadlyFramed { _ = prefs_http_response_header(answer, "Connection", "close") }
        _ = prefs_http_respond(connection, UInt32(response.status), answer)
        return true
    }
}
