/// Refuses what is not the protocol's before anything reads it: a path with escapes or dot
/// segments, a header line or a body over the server's limits.
package struct RequestLimits: HTTPMiddleware {
    package var maxHeaderBytes: Int
    package var maxBodyBytes: Int

    package init(maxHeaderBytes: Int, maxBodyBytes: Int) {
        self.maxHeaderBytes = maxHeaderBytes
        self.maxBodyBytes = maxBodyBytes
    }

    package func respond(
        to request: HTTPRequest, next: (HTTPRequest) throws -> HTTPResponse
    ) throws -> HTTPResponse {
        let path = request.path
        // The protocol's paths are plain names: no escape left after decoding (a NUL is
        // kept as %00 by the HTTP layer), no dot segment.
        if path.utf8.contains(0) || path.contains("%") || !path.hasPrefix("/")
            || path.split(separator: "/").contains(where: { $0 == ".." || $0 == "." })
        {
            throw HTTPError(400, .badPath, "the path must be a plain path of the protocol")
        }
        if request.isBadlyFramed {
            throw HTTPError(
                400, .malformed,
                "the body's length is told twice (Content-Length with another length)")
        }
        if request.largestHeader > maxHeaderBytes {
            throw HTTPError(
                431, .headerTooLarge, "a header is longer than \(maxHeaderBytes) bytes")
        }
        if request.isBodyTooLarge || request.body.count > maxBodyBytes {
            throw bodyTooLarge
        }
        return try next(request)
    }

    var bodyTooLarge: HTTPError {
        HTTPError(413, .bodyTooLarge, "the body is larger than \(maxBodyBytes) bytes")
    }
}
