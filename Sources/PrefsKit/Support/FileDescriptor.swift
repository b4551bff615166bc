#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Whole reads and writes on a file descriptor, retried after signals: the one copy the
/// library and the command line share.
package enum FileDescriptor {
    /// Writes every byte, unless the descriptor fails.
    ///
    /// - Returns: 0 when all was written, else the `errno` of the failure.
    @discardableResult
    package static func writeAll(_ bytes: UnsafeRawBufferPointer, to descriptor: Int32) -> Int32 {
        guard let base = bytes.baseAddress else { return 0 }
        var offset = 0
        while offset < bytes.count {
            let written = write(descriptor, base + offset, bytes.count - offset)
            if written < 0 && errno == EINTR { continue }
            if written < 0 { return errno }
            if written == 0 { return EIO }
            offset += written
        }
        return 0
    }

    /// Writes a string's UTF-8 bytes.
    ///
    /// - Returns: 0 when all was written, else the `errno` of the failure.
    @discardableResult
    package static func writeAll(_ text: String, to descriptor: Int32) -> Int32 {
        var text = text
        return text.withUTF8 { writeAll(UnsafeRawBufferPointer($0), to: descriptor) }
    }

    /// Reads until the end of the file.
    ///
    /// - Returns: The bytes, or the `errno` of the failure.
    package static func readAll(from descriptor: Int32) -> Result<[UInt8], FileError> {
        var result: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            if count < 0 { return .failure(FileError(code: errno)) }
            if count == 0 { return .success(result) }
            result.append(contentsOf: chunk[0..<count])
        }
    }

    /// An `errno` value, with the system's words for it.
    package struct FileError: Error, Sendable {
        package var code: Int32
        package var reason: String { String(cString: strerror(code)) }
    }
}
