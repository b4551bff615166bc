import CCurl
import PrefsKit
import PrefsSync

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The sync protocol's requests sent with libcurl, loaded at the first one: the command line
/// does not link URLSession (FoundationNetworking), whose Foundation and libcurl made a
/// short command start several times slower (docs/sync-protocol.md, "Clients").
package struct CurlTransport: SyncHTTPTransport {
    package let server: String
    /// A private CA's certificates (PEM), the only ones the server's chain may lead to.
    let certificateAuthorityFile: String?

    package init(server: String, certificateAuthorityFile: String?) {
        var shown = server
        while shown.hasSuffix("/") { shown.removeLast() }
        self.server = shown
        self.certificateAuthorityFile = certificateAuthorityFile
    }

    /// Why libcurl cannot be used; nil when it can.
    package static var loadFailure: String? {
        var reason = [CChar](repeating: 0, count: 512)
        guard prefs_curl_load(&reason, reason.count) == 0 else { return nil }
        let text = String(
            decoding: reason.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return prefs_curl_is_built_in() == 0
            ? text
            : "libcurl could not be loaded (\(text)); install it (Debian: apt-get install"
                + " libcurl4), or name it with PREFS_LIBCURL=PATH"
    }

    package func send(_ request: SyncHTTPRequest) throws -> SyncHTTPResponse {
        let headers = request.headers.map { $0.name + ": " + $0.value }
        var response = prefs_curl_response()
        let milliseconds =
            request.timeout.components.seconds * 1000
            + request.timeout.components.attoseconds / 1_000_000_000_000_000
        let answered = withCStrings(headers) { headerPointers in
            request.body.withUnsafeBufferPointer { body in
                prefs_curl_perform(
                    server + request.path, request.method, headerPointers, headers.count,
                    body.baseAddress, body.count, certificateAuthorityFile, Int(milliseconds),
                    256 << 20, &response)
            }
        }
        defer { prefs_curl_free(&response) }
        guard answered == 1 else {
            let detail = withUnsafeBytes(of: response.error) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            throw SyncTransportError(
                detail: detail, isRetryable: response.retryable != 0,
                isUntrusted: response.untrusted != 0)
        }
        let body =
            response.body.map { Array(UnsafeBufferPointer(start: $0, count: response.length)) }
            ?? []
        return SyncHTTPResponse(status: response.status, body: body)
    }

    /// The strings as C strings, alive for the body.
    private func withCStrings<T>(
        _ strings: [String], _ body: (UnsafePointer<UnsafePointer<CChar>?>?) -> T
    ) -> T {
        var pointers = strings.map { UnsafePointer(strdup($0)) }
        defer {
            for pointer in pointers { free(UnsafeMutablePointer(mutating: pointer)) }
        }
        return pointers.withUnsafeMutableBufferPointer { buffer in
            body(UnsafePointer(buffer.baseAddress))
        }
    }
}
