/// A request as the HTTP library parsed it (or a test made it): method, path, query, headers
/// and the body gathered whole.
package struct HTTPRequest {
    package var method: String
    /// The path, without the query, its escapes decoded (a NUL kept as `%00`).
    package var path: String
    /// A query argument's value.
    package var query: (String) -> String?
    /// A header's value (names in any case).
    package var header: (String) -> String?
    package var body: [UInt8]
    /// The body passed the server's limit and was not kept.
    package var isBodyTooLarge = false
    /// The body's length is told twice (two Content-Length headers, or one beside
    /// Transfer-Encoding): refused, and the connection closed.
    package var isBadlyFramed = false
    /// The longest header line's length (name and value).
    package var largestHeader = 0
    /// The client's address, for the log.
    package var peer: String?
    /// The headers alone, before a body announced is read: the router answers now what it
    /// can tell from them (no such route, no token, a token the hub does not know), or
    /// ``HTTPResponse/proceed`` to read the body.
    package var isHeadersOnly = false
    /// The account the request's token opened when its headers were looked at, moments
    /// before (``Router/init(routes:middleware:authenticate:)``): the handler need not look
    /// it up again.
    package var verifiedAccount: String?

    /// A request as the HTTP library hands it over.
    package init(
        method: String, path: String, query: @escaping (String) -> String?,
        header: @escaping (String) -> String?, body: [UInt8]
    ) {
        self.method = method
        self.path = path
        self.query = query
        self.header = header
        self.body = body
    }

    /// A request made whole in memory: what the router's tests send.
    package init(
        _ method: String, _ path: String, query: [String: String] = [:],
        headers: [String: String] = [:], body: [UInt8] = []
    ) {
        var byName: [String: String] = [:]
        for (name, value) in headers { byName[Self.headerKey(name)] = value }
        self.init(
            method: method, path: path, query: { query[$0] },
            header: { byName[Self.headerKey($0)] },
            body: body)
        largestHeader = headers.map { $0.key.utf8.count + $0.value.utf8.count }.max() ?? 0
    }

    /// A header name as it is looked up: ASCII letters in lower case and nothing else, as
    /// HTTP compares names. Unicode's lower case would make other spellings the same name
    /// (`Idempotency-\u{212A}ey`, with a Kelvin sign, as `idempotency-key`).
    package static func headerKey(_ name: String) -> String {
        String(
            decoding: name.utf8.map { (0x41...0x5A).contains($0) ? $0 + 0x20 : $0 }, as: UTF8.self)
    }
}
