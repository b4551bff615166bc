/// Sends answers of a kilobyte or more in gzip to a client that takes it (a pull far behind
/// is mostly repeated names). Behind nginx, which may compress too, it costs nothing extra:
/// nginx leaves an answer that has a Content-Encoding as it is.
package struct ResponseCompression: HTTPMiddleware {
    package init() {}

    package func respond(
        to request: HTTPRequest, next: (HTTPRequest) throws -> HTTPResponse
    ) throws -> HTTPResponse {
        var response = try next(request)
        guard response.body.count >= 1024,
            request.header("Accept-Encoding")?.lowercased().contains("gzip") == true,
            let compressed = Gzip.deflate(response.body)
        else { return response }
        response.body = compressed
        response.headers.append(("Content-Encoding", "gzip"))
        return response
    }
}
