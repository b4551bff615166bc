#if canImport(FoundationEssentials) && !PREFS_FULL_FOUNDATION
    import FoundationEssentials
#else
    import Foundation
#endif
#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A folder in the system's temporary folder that only this user may enter (0700), for
/// copies of files that may hold private data; its files are made 0600. It is removed with
/// everything in it when the value is dropped, on every path, errors included.
package final class PrivateTemporaryFolder {
    /// The folder's path.
    package let path: String

    /// Makes the folder.
    ///
    /// - Throws: ``DatabaseError/ioError(path:detail:)`` when it cannot be made.
    package init(prefix: String) throws(DatabaseError) {
        var base = FileManager.default.temporaryDirectory.path
        while base.count > 1 && base.hasSuffix("/") { base.removeLast() }
        let candidate = base + "/\(prefix)-\(UInt64.random(in: 0...UInt64.max))"
        // mkdir fails if anything is already there (a planted folder or link included).
        guard mkdir(candidate, 0o700) == 0 else {
            throw .ioError(
                path: candidate, detail: "cannot make a private temporary folder: \(Self.reason())")
        }
        path = candidate
    }

    deinit {
        try? FileManager.default.removeItem(atPath: path)
    }

    /// Copies a file into the folder as `name`, mode 0600, and returns the copy's path.
    ///
    /// - Throws: ``DatabaseError/ioError(path:detail:)`` when it cannot be read or written.
    package func copy(_ source: String, as name: String) throws(DatabaseError) -> String {
        let target = path + "/" + name
        let input = open(source, O_RDONLY | O_CLOEXEC)
        guard input >= 0 else { throw .ioError(path: source, detail: Self.reason()) }
        defer { close(input) }
        let output = open(target, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard output >= 0 else { throw .ioError(path: target, detail: Self.reason()) }
        defer { close(output) }
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(input, $0.baseAddress, $0.count) }
            if count == 0 { break }
            guard count > 0 else {
                if errno == EINTR { continue }
                throw .ioError(path: source, detail: Self.reason())
            }
            var written = 0
            while written < count {
                let step = buffer.withUnsafeBytes { raw in
                    write(output, raw.baseAddress.map { $0 + written }, count - written)
                }
                guard step > 0 else {
                    if step < 0 && errno == EINTR { continue }
                    if errno == ENOSPC { throw .diskFull(path: target) }
                    throw .ioError(path: target, detail: Self.reason())
                }
                written += step
            }
        }
        return target
    }

    private static func reason() -> String { String(cString: strerror(errno)) }
}
