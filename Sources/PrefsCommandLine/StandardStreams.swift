#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Writes text to standard output.
func writeOutput(_ text: String) {
    write(text, to: 1)
}

/// Writes text to standard error.
func writeError(_ text: String) {
    write(text, to: 2)
}

private func write(_ text: String, to descriptor: Int32) {
    var text = text
    text.withUTF8 { buffer in
        var offset = 0
        while offset < buffer.count {
            let written = Glibc.write(descriptor, buffer.baseAddress! + offset, buffer.count - offset)
            if written <= 0 { return }
            offset += written
        }
    }
}
