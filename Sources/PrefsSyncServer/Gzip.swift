internal import CMicroHTTPD

/// gzip bodies through zlib (Sources/CMicroHTTPD).
enum Gzip {
    enum Inflated {
        case inflated([UInt8])
        /// It would inflate past the limit (and was not inflated further).
        case tooLarge
        /// Not gzip, or cut short.
        case notGzip
    }

    static func inflate(_ body: [UInt8], max: Int) -> Inflated {
        var output: UnsafeMutablePointer<UInt8>?
        var length = 0
        let result = body.withUnsafeBufferPointer {
            prefs_http_gunzip($0.baseAddress, $0.count, max, &output, &length)
        }
        defer { prefs_http_free(output) }
        switch result {
        case 0:
            return .inflated(
                output.map { Array(UnsafeBufferPointer(start: $0, count: length)) } ?? [])
        case 1: return .tooLarge
        default: return .notGzip
        }
    }

    static func deflate(_ body: [UInt8]) -> [UInt8]? {
        var output: UnsafeMutablePointer<UInt8>?
        var length = 0
        let result = body.withUnsafeBufferPointer {
            prefs_http_gzip($0.baseAddress, $0.count, &output, &length)
        }
        defer { prefs_http_free(output) }
        guard result == 0, let output else { return nil }
        return Array(UnsafeBufferPointer(start: output, count: length))
    }
}
