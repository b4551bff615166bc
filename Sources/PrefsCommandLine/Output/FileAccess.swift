import PrefsKit

#if canImport(FoundationEssentials) && !PREFS_FULL_FOUNDATION
    import FoundationEssentials
#else
    import Foundation
#endif

#if canImport(Glibc)
    import Glibc

    private let systemRead = Glibc.read
#elseif canImport(Darwin)
    import Darwin

    private let systemRead = Darwin.read
#endif

/// Reading input files and writing output files with precise errors and exit codes.
enum FileAccess {
    /// Reads a whole file, or standard input for `-`.
    ///
    /// - Throws: ``CommandFailure`` with exit 66 when the file is missing or unreadable.
    static func read(_ path: String, console: Console) throws(CommandFailure) -> [UInt8] {
        if path == "-" {
            guard let bytes = console.readInput() else {
                throw CommandFailure("Cannot read standard input", exitCode: CommandFailure.noInput)
            }
            return bytes
        }
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            throw CommandFailure(
                "Cannot read '\(path)': \(String(cString: strerror(errno)))",
                exitCode: CommandFailure.noInput)
        }
        defer { close(descriptor) }
        var status = stat()
        if fstat(descriptor, &status) == 0, status.st_mode & S_IFMT == S_IFDIR {
            throw CommandFailure(
                "Cannot read '\(path)': it is a directory", exitCode: CommandFailure.noInput)
        }
        switch FileDescriptor.readAll(from: descriptor) {
        case .success(let bytes): return bytes
        case .failure(let error):
            throw CommandFailure(
                "Cannot read '\(path)': \(error.reason)", exitCode: CommandFailure.noInput)
        }
    }

    /// A regular file, read from its start in pieces of 64 KB each time ``reader()`` is
    /// called: for imports that read a large file twice (checked, then stored) in constant
    /// memory. Nil for anything else (standard input, a FIFO, a directory, a missing file):
    /// those are read whole.
    final class Pieces: Sendable {
        let path: String
        /// Its size when it was looked at.
        let size: Int

        init?(regularFileAt path: String) {
            guard path != "-" else { return nil }
            var status = stat()
            guard stat(path, &status) == 0, status.st_mode & S_IFMT == S_IFREG else { return nil }
            self.path = path
            size = Int(status.st_size)
        }

        /// Its first bytes, up to `count`.
        func head(_ count: Int) throws -> [UInt8] {
            let next = try reader()
            var bytes: [UInt8] = []
            while bytes.count < count, let piece = try next() { bytes += piece }
            return Array(bytes.prefix(count))
        }

        /// The file's bytes at any offset, up to `count` (fewer at its end); the file is
        /// closed when the reader goes.
        ///
        /// - Throws: ``CommandFailure`` with exit 66 when it cannot be opened or read.
        func randomAccess() throws -> (_ offset: Int, _ count: Int) throws -> [UInt8] {
            let file = OpenFile(try openForReading())
            let path = path
            return { offset, count in
                guard offset >= 0, count >= 0 else { return [] }
                var bytes = [UInt8](repeating: 0, count: count)
                var done = 0
                while done < count {
                    let read = bytes.withUnsafeMutableBytes {
                        pread(
                            file.descriptor, $0.baseAddress.map { $0 + done }, count - done,
                            off_t(offset + done))
                    }
                    if read < 0 && errno == EINTR { continue }
                    guard read >= 0 else {
                        throw CommandFailure(
                            "Cannot read '\(path)': \(String(cString: strerror(errno)))",
                            exitCode: CommandFailure.noInput)
                    }
                    guard read > 0 else { break }
                    done += read
                }
                bytes.removeSubrange(done...)
                return bytes
            }
        }

        private func openForReading() throws -> Int32 {
            let descriptor = open(path, O_RDONLY | O_CLOEXEC)
            guard descriptor >= 0 else {
                throw CommandFailure(
                    "Cannot read '\(path)': \(String(cString: strerror(errno)))",
                    exitCode: CommandFailure.noInput)
            }
            return descriptor
        }

        /// The file's pieces from its start, then nil (the file is closed when the reader
        /// goes).
        ///
        /// - Throws: ``CommandFailure`` with exit 66 when it cannot be opened or read.
        func reader() throws -> () throws -> [UInt8]? {
            let file = OpenFile(try openForReading())
            let path = path
            return {
                var piece = [UInt8](repeating: 0, count: 1 << 16)
                while true {
                    let count = piece.withUnsafeMutableBytes {
                        systemRead(file.descriptor, $0.baseAddress, $0.count)
                    }
                    if count < 0 && errno == EINTR { continue }
                    guard count >= 0 else {
                        throw CommandFailure(
                            "Cannot read '\(path)': \(String(cString: strerror(errno)))",
                            exitCode: CommandFailure.noInput)
                    }
                    guard count > 0 else { return nil }
                    piece.removeSubrange(count...)
                    return piece
                }
            }
        }
    }

    /// A descriptor closed with its last reference.
    private final class OpenFile: Sendable {
        let descriptor: Int32
        init(_ descriptor: Int32) { self.descriptor = descriptor }
        deinit { close(descriptor) }
    }

    /// Writes a file atomically: a temporary file beside it, synced, then renamed.
    ///
    /// - Throws: ``CommandFailure`` with exit 73 when it cannot be created, 74 on I/O errors.
    static func writeAtomically(_ bytes: [UInt8], to path: String) throws(CommandFailure) {
        do {
            try writeAtomically(to: path) { write in try write(bytes) }
        } catch let failure as CommandFailure {
            throw failure
        } catch {
            throw CommandFailure(
                "Cannot write '\(path)': \(error)", exitCode: CommandFailure.ioError)
        }
    }

    /// The same, with the bytes handed over piece by piece by `produce` (through the writer
    /// it is given): a file of any size is written in constant memory, and when `produce` or
    /// a write fails, the file at `path` is as it was.
    static func writeAtomically(
        to path: String, _ produce: (_ write: ([UInt8]) throws -> Void) throws -> Void
    ) throws {
        let temporary = path + ".prefs-tmp-\(getpid())"
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else {
            throw CommandFailure(
                "Cannot create '\(path)': \(String(cString: strerror(errno)))",
                exitCode: CommandFailure.cannotCreate)
        }
        do {
            try produce { bytes in
                let failure = bytes.withUnsafeBytes { FileDescriptor.writeAll($0, to: descriptor) }
                if failure != 0 {
                    throw CommandFailure(
                        "Cannot write '\(path)': \(String(cString: strerror(failure)))",
                        exitCode: CommandFailure.ioError)
                }
            }
        } catch {
            close(descriptor)
            unlink(temporary)
            throw error
        }
        if fsync(descriptor) != 0 || close(descriptor) != 0 {
            let reason = String(cString: strerror(errno))
            unlink(temporary)
            throw CommandFailure(
                "Cannot write '\(path)': \(reason)", exitCode: CommandFailure.ioError)
        }
        if rename(temporary, path) != 0 {
            let reason = String(cString: strerror(errno))
            unlink(temporary)
            throw CommandFailure(
                "Cannot create '\(path)': \(reason)", exitCode: CommandFailure.cannotCreate)
        }
    }
}
