import PrefsKit
import PrefsSync

/// A request answered with an error: the status, the protocol's stable code, one sentence
/// for the client, and for the log the cause the client is not told.
package struct HTTPError: Error, Sendable {
    package var status: Int
    package var code: SyncErrorCode
    package var message: String
    /// Seconds after which the request may be sent again (503).
    package var retryAfter: Int?
    /// What went wrong, for the log line.
    package var cause: String?
    /// The account the request acted for when it failed, for the log line.
    package var account: String?

    package init(
        _ status: Int, _ code: SyncErrorCode, _ message: String, retryAfter: Int? = nil,
        cause: String? = nil
    ) {
        self.status = status
        self.code = code
        self.message = message
        self.retryAfter = retryAfter
        self.cause = cause
    }

    /// Any error as an answer: an ``HTTPError`` as it is; the hub's errors by their kind
    /// (403 for a refusal, 503 while it cannot answer); anything else a 500. Every one but
    /// an ``HTTPError`` keeps its cause for the log.
    package init(_ error: any Error) {
        if let error = error as? HTTPError {
            self = error
            return
        }
        let cause = Self.cause(of: error)
        switch (error as? DatabaseError)?.kind {
        case .permissionDenied:
            self.init(
                403, .forbidden, "the hub refused this account's request", cause: cause)
        case .busy, .timedOut, .unavailable, .serverDatabaseMissing:
            self.init(
                503, .unavailable, "the hub cannot answer now", retryAfter: 1, cause: cause)
        default:
            self.init(500, .internal, "the server failed to answer", cause: cause)
        }
    }

    /// The error as one line: a ``DatabaseError``'s kind, the engine's code and the
    /// engine's own error; another error as it describes itself.
    static func cause(of error: any Error) -> String {
        guard let error = error as? DatabaseError else {
            return "\(type(of: error)): " + logText(String(describing: error))
        }
        var parts = [logText(error.description)]
        if let code = error.engineCode { parts.append(code.description) }
        if let underlying = error.underlying {
            parts.append(logText(String(describing: underlying)))
        }
        return parts.joined(separator: "; ")
    }

    /// Text for one log line: controls escaped, at most 400 characters.
    private static func logText(_ text: String) -> String {
        let scalars = text.unicodeScalars
        let shown = MessageText.escaped(String(String.UnicodeScalarView(scalars.prefix(400))))
        return scalars.count > 400 ? shown + "..." : shown
    }

    /// The answer sent.
    package var response: HTTPResponse {
        var response = HTTPResponse(
            status: status,
            body: SyncWire.json(SyncWire.ErrorBody(error: code.rawValue, message: message)))
        if let retryAfter { response.headers.append(("Retry-After", String(retryAfter))) }
        response.cause = cause
        response.account = account
        return response
    }
}
