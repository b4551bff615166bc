/// What stands between the server and its routes: each middleware gets the request and the
/// rest of the chain, and may answer instead, change the request, or change the answer.
package protocol HTTPMiddleware: Sendable {
    func respond(to request: HTTPRequest, next: (HTTPRequest) throws -> HTTPResponse) throws
        -> HTTPResponse
}

/// The device token of a request, as `Authorization: Bearer` carried it. Only the router
/// makes one, for a route that takes it: a handler of such a route cannot be reached
/// without it, and cannot forget to ask for it.
package struct BearerToken: Sendable {
    package let value: String
    /// The account the token opened when the request's headers were looked at.
    package let verifiedAccount: String?

    fileprivate init(_ value: String, verifiedAccount: String?) {
        self.value = value
        self.verifiedAccount = verifiedAccount
    }
}

/// One call of the protocol: its method and path, and what answers it.
package struct Route: Sendable {
    package enum Handler: Sendable {
        /// Answers without a token (`/healthz`).
        case open(@Sendable (HTTPRequest) throws -> HTTPResponse)
        /// Answers for the account a device token opens.
        case withToken(@Sendable (HTTPRequest, BearerToken) throws -> HTTPResponse)
    }

    package var method: String
    package var path: String
    package var handler: Handler

    /// A call anyone may make.
    package static func open(
        _ method: String, _ path: String,
        _ handler: @escaping @Sendable (HTTPRequest) throws -> HTTPResponse
    ) -> Route {
        Route(method: method, path: path, handler: .open(handler))
    }

    /// A call made with a device token.
    package static func withToken(
        _ method: String, _ path: String,
        _ handler: @escaping @Sendable (HTTPRequest, BearerToken) throws -> HTTPResponse
    ) -> Route {
        Route(method: method, path: path, handler: .withToken(handler))
    }
}

/// The server's routes as one table, and the middleware every request goes through, the
/// first outermost. An unknown path is a 404, a known one with the other method a 405; any
/// error a handler or middleware throws becomes its answer (``HTTPError/init(_:)``).
package struct Router: Sendable {
    private let routes: [String: Route]
    private let middleware: [any HTTPMiddleware]
    private let authenticate: @Sendable (BearerToken) throws -> String?

    /// - Parameters:
    ///   - authenticate: Checks a token from a request's headers, before its body is read,
    ///     and returns the account it opens (nil: not known); throws to answer instead (an
    ///     unknown token: 401).
    /// - Precondition: no two routes share a path (the protocol gives each path one method).
    package init(
        routes: [Route], middleware: [any HTTPMiddleware],
        authenticate: @escaping @Sendable (BearerToken) throws -> String? = { _ in nil }
    ) {
        var byPath: [String: Route] = [:]
        for route in routes { byPath[route.path] = route }
        self.routes = byPath
        self.middleware = middleware
        self.authenticate = authenticate
    }

    /// The paths and methods, for the documentation's check.
    package var table: [(method: String, path: String)] {
        routes.values.map { ($0.method, $0.path) }.sorted { $0.path < $1.path }
    }

    /// The answer to a request; never throws: an error is an answer too.
    package func respond(to request: HTTPRequest) -> HTTPResponse {
        var chain: (HTTPRequest) throws -> HTTPResponse = { request in
            try self.dispatch(request)
        }
        for layer in middleware.reversed() {
            let next = chain
            chain = { request in try layer.respond(to: request, next: next) }
        }
        do {
            return try chain(request)
        } catch {
            return HTTPError(error).response
        }
    }

    private func dispatch(_ request: HTTPRequest) throws -> HTTPResponse {
        guard let route = routes[request.path] else {
            throw HTTPError(404, .notFound, "no such call of the sync protocol")
        }
        guard request.method == route.method else {
            throw HTTPError(
                405, .methodNotAllowed, "\(route.path) takes \(route.method)")
        }
        switch route.handler {
        case .open(let handler):
            return request.isHeadersOnly ? .proceed : try handler(request)
        case .withToken(let handler):
            // The scheme's name in any case (RFC 9110, 11.1), then the token.
            guard let authorization = request.header("Authorization"),
                authorization.utf8.count > 7,
                authorization.prefix(7).lowercased() == "bearer "
            else {
                throw HTTPError(
                    401, .noToken, "a device token is needed (Authorization: Bearer)")
            }
            let token = BearerToken(
                String(authorization.dropFirst(7)), verifiedAccount: request.verifiedAccount)
            if request.isHeadersOnly {
                var proceed = HTTPResponse.proceed
                proceed.account = try authenticate(token)
                return proceed
            }
            return try handler(request, token)
        }
    }
}
