#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// One line per request: time, peer, method, path (as its bytes allow, never a token),
/// status, bytes out, milliseconds, account, bytes in; and for every answer of 500 or more,
/// the cause: the error's kind, the engine's code and the engine's own error.
package struct RequestLog: HTTPMiddleware {
    private let write: @Sendable (String) -> Void

    /// A log that hands each line (with its newline) to `write`.
    package init(_ write: @escaping @Sendable (String) -> Void) { self.write = write }

    package func respond(
        to request: HTTPRequest, next: (HTTPRequest) throws -> HTTPResponse
    ) throws -> HTTPResponse {
        let started = ContinuousClock.now
        let response: HTTPResponse
        do {
            response = try next(request)
        } catch {
            response = HTTPError(error).response
        }
        // Headers let through to their body: the line comes with the whole request.
        if response.status == HTTPResponse.proceed.status, response.parked == nil {
            return response
        }
        let start =
            "\(Self.now()) \(request.peer ?? "-") \(request.method.prefix(16))"
            + " \(Self.shown(request.path))"
        let end =
            " in=\(request.body.count)B"
            + (request.header("Content-Encoding") == nil ? "" : " gzip")
        let write = write
        // A parked answer (a long poll) is logged when it is given.
        return response.map { response in
            let elapsed = ContinuousClock.now - started
            let milliseconds =
                Double(elapsed.components.attoseconds) / 1e15
                + Double(elapsed.components.seconds) * 1000
            var line =
                start + " \(response.status) \(response.body.count)B"
                + " \(Self.tenths(milliseconds))ms account=\(response.account ?? "-")" + end
            if response.status >= 500 {
                let cause = (response.cause ?? "none given").replacing("\"", with: "'")
                line += " cause=\"\(cause)\""
            }
            write(line + "\n")
            return response
        }
    }

    /// Control characters, spaces and quotes as `%xx`; at most 200 characters.
    static func shown(_ text: String) -> String {
        let cut = text.unicodeScalars.prefix(200).map { scalar -> String in
            scalar.properties.generalCategory == .control || scalar == " " || scalar == "\""
                ? "%" + String(scalar.value, radix: 16) : String(scalar)
        }.joined()
        return text.unicodeScalars.count > 200 ? cut + "..." : cut
    }

    static func tenths(_ value: Double) -> String {
        let scaled = Int((value * 10).rounded())
        return "\(scaled / 10).\(scaled % 10)"
    }

    /// The time now, in UTC, to the second.
    static func now() -> String {
        var seconds = time(nil)
        var parts = tm()
        _ = gmtime_r(&seconds, &parts)
        func two(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
        return "\(parts.tm_year + 1900)-\(two(parts.tm_mon + 1))-\(two(parts.tm_mday))T"
            + "\(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec))Z"
    }
}
