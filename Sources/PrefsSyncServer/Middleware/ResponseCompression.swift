/// Sends answers of a kilobyte or more in gzip to a client that takes it (a pull far behind
/// is mostly repeated names). Behind nginx, which may compress too, it costs nothing extra:
/// nginx leaves an answer that has a Content-Encoding as it is.
package struct ResponseCompression: HTTPMiddleware {
    package init() {}

    package func respond(
        to request: HTTPRequest, next: (HTTPRequest) throws -> HTTPResponse
    ) throws -> HTTPResponse {
        let accepts = request.header("Accept-Encoding")?.lowercased().contains("gzip") == true
        return try next(request).map { response in
            guard accepts, response.body.count >= 1024, let compressed = Gzip.deflate(response.body)
            else { return response }
            var response = response
            response.body = compressed
            response.headers.append(("Content-Encoding", "gzip"))
            return response
        }
    }
}
