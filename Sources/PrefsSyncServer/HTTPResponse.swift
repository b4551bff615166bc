/// An answer: a status, its headers and a JSON body; with, for the request log only, the
/// account the token opened and the cause of a failure.
package struct HTTPResponse: Sendable {
    package var status: Int
    package var body: [UInt8]
    /// Headers beyond Content-Type and Cache-Control.
    package var headers: [(name: String, value: String)] = []
    /// The account the token opened (never the token).
    package var account: String?
    /// Why the request failed, as the log line tells it; never sent.
    package var cause: String?

    package init(status: Int, body: [UInt8]) {
        self.status = status
        self.body = body
    }

    /// The answer to a request's headers that lets its body be read (``HTTPRequest/isHeadersOnly``):
    /// HTTP's 100 Continue, never logged.
    package static let proceed = HTTPResponse(status: 100, body: [])

    /// A header's value, by name in any case.
    package func header(_ name: String) -> String? {
        headers.first { $0.name.lowercased() == name.lowercased() }?.value
    }
}
