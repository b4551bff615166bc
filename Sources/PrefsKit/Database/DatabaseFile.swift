#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The file-system side of a database kept in files: creating the file and its folders
/// with private modes, refusing what is not a plain file, and reading modes and sizes.
enum DatabaseFile {
    /// Whether anything exists at a path (a symbolic link counts, even a dangling one).
    static func exists(atPath path: String) -> Bool {
        var status = stat()
        return lstat(path, &status) == 0
    }

    /// Refuses directories and symlinks, and creates a missing file with mode 0600 in
    /// folders of mode 0700.
    ///
    /// - Parameter create: Whether a missing file is to be created; `.notFound` otherwise.
    static func prepare(at path: String, create: Bool) throws(DatabaseError) {
        var status = stat()
        if lstat(path, &status) == 0 {
            switch status.st_mode & S_IFMT {
            case S_IFDIR: throw .isDirectory(path: path)
            case S_IFLNK: throw .isSymlink(path: path)
            default: return
            }
        }
        guard errno == ENOENT else {
            throw .cannotCreate(path: path, reason: String(cString: strerror(errno)))
        }
        guard create else { throw .notFound(path: path) }
        try createDirectories(for: path)
        let descriptor = open(path, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC | O_NOFOLLOW, 0o600)
        if descriptor < 0 {
            if errno == EEXIST { return }  // another process created it first
            let reason = String(cString: strerror(errno))
            if errno == ENOSPC { throw .diskFull(path: path) }
            if errno == EROFS || errno == EDQUOT { throw .readOnly(path: path) }
            throw .cannotCreate(path: path, reason: reason)
        }
        close(descriptor)
    }

    private static func createDirectories(for path: String) throws(DatabaseError) {
        var components = path.split(separator: "/", omittingEmptySubsequences: false)
        components.removeLast()
        var current = path.hasPrefix("/") ? "" : "."
        for component in components where !component.isEmpty {
            current += "/" + component
            var status = stat()
            if stat(current, &status) == 0 {
                guard status.st_mode & S_IFMT == S_IFDIR else {
                    throw .cannotCreate(path: path, reason: "'\(current)' is not a directory")
                }
                continue
            }
            if mkdir(current, 0o700) != 0 && errno != EEXIST {
                throw .cannotCreate(path: path, reason: String(cString: strerror(errno)))
            }
        }
    }

    /// Takes away the group and other permissions of the files that belong to this user.
    /// The first file is the database's main file: only when this user owns it are the
    /// others touched (their folder is left alone: it may be shared, like `/tmp`).
    ///
    /// - Returns: the files changed, each with its old mode.
    /// - Throws: ``DatabaseError/readOnly(path:)`` when the file system refuses the change,
    ///   ``DatabaseError/ioError(path:detail:)`` when it fails otherwise.
    static func restrictModes(of files: [String]) throws(DatabaseError) -> [(
        path: String, oldMode: Int
    )] {
        guard let main = files.first else { return [] }
        var changed: [(path: String, oldMode: Int)] = []
        for file in files {
            guard let mode = mode(of: file), mode & 0o077 != 0 else { continue }
            // Only the owner may change a mode; another user's files are reported, not touched.
            guard owner(of: main) == geteuid(), owner(of: file) == geteuid() else { continue }
            guard chmod(file, mode_t(mode & ~0o077)) == 0 else {
                let code = errno
                if code == EPERM || code == EROFS { throw .readOnly(path: file) }
                throw .ioError(path: file, detail: String(cString: strerror(code)))
            }
            changed.append((file, mode))
        }
        return changed
    }

    /// The folder a path is in.
    static func directory(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }

    /// The permission bits of a file, nil when it cannot be read.
    static func mode(of path: String) -> Int? {
        var status = stat()
        guard stat(path, &status) == 0 else { return nil }
        return Int(status.st_mode & 0o7777)
    }

    private static func owner(of path: String) -> uid_t? {
        var status = stat()
        guard stat(path, &status) == 0 else { return nil }
        return status.st_uid
    }

    /// The size of a file in bytes, 0 when it is missing.
    static func size(of path: String) -> Int64 {
        var status = stat()
        guard stat(path, &status) == 0 else { return 0 }
        return Int64(status.st_size)
    }
}
