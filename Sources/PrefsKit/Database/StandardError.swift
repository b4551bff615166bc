#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Writes a message to standard error without Foundation.
func standardErrorWrite(_ text: String) {
    var text = text
    text.withUTF8 { buffer in
        guard let base = buffer.baseAddress else { return }
        var offset = 0
        while offset < buffer.count {
            let written = write(2, base + offset, buffer.count - offset)
            if written <= 0 { return }
            offset += written
        }
    }
}
