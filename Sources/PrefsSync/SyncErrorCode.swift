/// The stable codes of the sync protocol's errors (docs/sync-protocol.md, "Errors"): what
/// the server sends in an error's `error` field and what a client reads there. One list, for
/// both sides.
public enum SyncErrorCode: String, Sendable, Hashable, CaseIterable {
    /// 400: the path is not a plain path of the protocol.
    case badPath = "bad_path"
    /// 400: the body is not the JSON the call takes, or a value does not read as its type.
    case malformed
    /// 400: a device id that is not 1 to 64 visible ASCII characters.
    case badDevice = "bad_device"
    /// 400: a device name that is not 1 to 64 code points without control characters.
    case badName = "bad_name"
    /// 400: an idempotency key that is not 1 to 128 visible characters.
    case badIdempotencyKey = "bad_idempotency_key"
    /// 400: a body that is not the gzip its Content-Encoding says.
    case badEncoding = "bad_encoding"
    /// 401: no device token.
    case noToken = "no_token"
    /// 401: a token the hub does not know, or revoked.
    case badToken = "bad_token"
    /// 403: the hub refused the account's request.
    case forbidden
    /// 404: no such call.
    case notFound = "not_found"
    /// 405: the call takes the other method.
    case methodNotAllowed = "method_not_allowed"
    /// 413: a body over the server's limit.
    case bodyTooLarge = "body_too_large"
    /// 413: a push of more changes than the server takes.
    case tooManyChanges = "too_many_changes"
    /// 415: a body in an encoding other than gzip.
    case unsupportedEncoding = "unsupported_encoding"
    /// 422: a push's idempotency key was kept for another push.
    case idempotencyKeyReused = "idempotency_key_reused"
    /// 429: a token already holds as many waiting long polls as the server allows.
    case tooManyPolls = "too_many_polls"
    /// 431: a header line over the server's limit.
    case headerTooLarge = "header_too_large"
    /// 500: the server failed (its log says why).
    case `internal`
    /// 503: every connection to the hub is in use.
    case busy
    /// 503: the hub cannot answer now.
    case unavailable
    /// 503: `/readyz` while the hub cannot be reached.
    case notReady = "not_ready"
}

/// What a sync server answered instead of doing a call: its status and stable code, as the
/// ``DatabaseError`` a client throws keeps it (`underlying`).
public struct SyncServerRefusal: Error, Sendable, Hashable, CustomStringConvertible {
    /// The HTTP status.
    public var status: Int
    /// The error's code as sent; a code of a newer server may be none of ``SyncErrorCode``.
    public var code: String
    /// The server's sentence, as it may be shown.
    public var message: String

    /// The code, when it is one this client knows.
    public var knownCode: SyncErrorCode? { SyncErrorCode(rawValue: code) }

    public var description: String { "HTTP \(status) \(code): \(message)" }
}
