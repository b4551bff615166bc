/// Undoes a body's `Content-Encoding: gzip` (through zlib), refusing one that inflates past
/// the limit, one that is not the gzip it says, and any other encoding.
package struct Decompression: HTTPMiddleware {
    package var maxBodyBytes: Int

    package init(maxBodyBytes: Int) { self.maxBodyBytes = maxBodyBytes }

    package func respond(
        to request: HTTPRequest, next: (HTTPRequest) throws -> HTTPResponse
    ) throws -> HTTPResponse {
        guard !request.isHeadersOnly, let encoding = request.header("Content-Encoding") else {
            return try next(request)
        }
        var request = request
        switch encoding.lowercased() {
        case "identity":
            break
        case "gzip":
            switch Gzip.inflate(request.body, max: maxBodyBytes) {
            case .inflated(let body):
                request.body = body
            case .tooLarge:
                throw HTTPError(413, .bodyTooLarge, "the body is larger than \(maxBodyBytes) bytes")
            case .notGzip:
                throw HTTPError(400, .badEncoding, "the body is not the gzip it says it is")
            }
        default:
            throw HTTPError(415, .unsupportedEncoding, "a body may be sent as it is or in gzip")
        }
        return try next(request)
    }
}
