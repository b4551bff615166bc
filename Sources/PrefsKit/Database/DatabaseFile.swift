#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The file-system side of a database kept in files: creating the file and its folders
/// with private modes, refusing what is not a plain file, and reading modes and sizes.
enum DatabaseFile {
    /// Whether anything exists at a path (a symbolic link counts, even a dangling one, and so
    /// does a path that cannot be looked at: opening it says why).
    static func exists(atPath path: String) -> Bool {
        var status = stat()
        if lstat(path, &status) == 0 { return true }
        return errno != ENOENT && errno != ENOTDIR
    }

    /// The path with its folders' links resolved (`realpath` of the folder) and its last
    /// name kept as it is; the path as given when the folder cannot be resolved.
    static func resolvingFolders(of path: String) -> String {
        let folder = directory(of: path)
        // A String, not a Substring: `String + Substring` is the generic `+` over any
        // sequence of characters, whose first call costs a start-up a tenth of its
        // instructions in finding the generic types' metadata.
        // (Nor an array of every name in the path, which `split` would make, for the last.)
        let name = path.lastIndex(of: "/").map { String(path[path.index(after: $0)...]) } ?? path
        guard !name.isEmpty, let resolved = realpath(folder, nil) else { return path }
        defer { free(resolved) }
        let real = String(cString: resolved)
        return (real.hasSuffix("/") ? real : real + "/") + name
    }

    /// The name of the kernel's file system the path is on (`/proc`, `/sys`), whose files
    /// look regular but are no files to keep data in (`/proc/self/mem` reads as an I/O
    /// error); nil elsewhere.
    static func kernelFileSystem(of path: String) -> String? {
        #if os(Linux)
            guard let resolved = realpath(path, nil) else { return nil }
            defer { free(resolved) }
            let real = String(cString: resolved)
            for (mount, name) in [("/proc/", "procfs"), ("/sys/", "sysfs")]
            where real.hasPrefix(mount) {
                return name
            }
            return nil
        #else
            return nil
        #endif
    }

    /// Whether the file's header marks it as a write-ahead-log database (read and write
    /// versions 2, bytes 18 and 19): a connection that opened it as immutable (a folder this
    /// user cannot write) reports another journal mode.
    static func isInWALMode(_ path: String) -> Bool {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        var versions: (UInt8, UInt8) = (0, 0)
        let count = withUnsafeMutableBytes(of: &versions) {
            pread(descriptor, $0.baseAddress, 2, 18)
        }
        return count == 2 && versions == (2, 2)
    }

    /// Why this user could not write the database, nil when it can: the file, or (for the
    /// write-ahead log and its index, made beside the file) the folder, is read-only for
    /// this user, or the file system is.
    static func writeProblem(of path: String) -> String? {
        if access(path, W_OK) != 0 {
            if errno == EROFS { return "the file system is read-only" }
            if errno == EACCES || errno == EPERM { return "this user may not write the file" }
        }
        let folder = directory(of: path)
        let companionsMissing = [path + "-wal", path + "-shm"].contains { !exists(atPath: $0) }
        if companionsMissing, access(folder, W_OK) != 0 {
            if errno == EROFS { return "the file system is read-only" }
            return "this user may not write the folder '\(folder)', where the -wal and -shm"
                + " files are made"
        }
        return nil
    }

    /// The files SQLite keeps beside a database: its write-ahead log, its shared-memory index
    /// and its rollback journal. SQLite reads each of them when it opens the database.
    static func companions(of path: String) -> [String] {
        [path + "-wal", path + "-shm", path + "-journal"]
    }

    /// Refuses what is not a plain file of this user's, and creates a missing file with mode
    /// 0600 (in folders of mode 0700 when `createsFolders`).
    ///
    /// The database and each of its companion files must be regular files, owned by the
    /// effective user and not writable by group or others, as git's `safe.directory` and
    /// ssh's `StrictModes` require: a file someone else controls could feed this process
    /// values (a planted `-wal`) or receive its secrets. One `lstat` per file.
    ///
    /// - Parameters:
    ///   - create: Whether a missing file is to be created; `.notFound` otherwise.
    ///   - createsFolders: Whether missing folders on the way are made; `.folderMissing`
    ///     otherwise.
    ///   - allowsShared: Accept files of other users, or writable by them (a file shared on
    ///     purpose).
    static func prepare(
        at path: String, shownAs shown: String? = nil, create: Bool, createsFolders: Bool = true,
        allowsShared: Bool = false
    ) throws(DatabaseError) {
        // Errors name the path as the user gave it; the checks are made on `path`.
        let named = shown ?? path
        var status = stat()
        if lstat(path, &status) == 0 {
            switch status.st_mode & S_IFMT {
            case S_IFREG:
                if let system = kernelFileSystem(of: path) {
                    throw .specialFile(path: named, kind: "a file of the kernel (\(system))")
                }
            case S_IFDIR: throw .isDirectory(path: named)
            case S_IFLNK: throw .isSymlink(path: named)
            default: throw .specialFile(path: named, kind: kind(of: status.st_mode))
            }
            if !allowsShared { try checkTrust(of: named, status: status, database: named) }
            try checkCompanions(of: path, shownAs: named, allowsShared: allowsShared)
            return
        }
        let code = errno
        guard code == ENOENT || code == ENOTDIR else { throw error(for: code, path: named) }
        guard create else { throw .notFound(path: named) }
        // A companion planted before the database exists would be read by the first open.
        try checkCompanions(of: path, shownAs: named, allowsShared: allowsShared)
        if createsFolders {
            try createDirectories(for: path)
        } else {
            var folder = stat()
            guard stat(directory(of: path), &folder) == 0 else {
                if errno == ENOENT { throw .folderMissing(path: named) }
                throw error(for: errno, path: named)
            }
        }
        let descriptor = open(path, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC | O_NOFOLLOW, 0o600)
        if descriptor < 0 {
            if errno == EEXIST {  // another process created it first
                return try prepare(
                    at: path, shownAs: shown, create: false, createsFolders: false,
                    allowsShared: allowsShared)
            }
            let reason = String(cString: strerror(errno))
            if errno == ENOSPC { throw .diskFull(path: named) }
            if errno == EROFS || errno == EDQUOT { throw .readOnly(path: named) }
            throw .cannotCreate(path: named, reason: reason)
        }
        close(descriptor)
    }

    private static func checkCompanions(of path: String, shownAs named: String, allowsShared: Bool)
        throws(DatabaseError)
    {
        for (file, shown) in zip(companions(of: path), companions(of: named)) {
            var status = stat()
            guard lstat(file, &status) == 0 else {
                if errno == ENOENT || errno == ENOTDIR { continue }
                throw error(for: errno, path: shown)
            }
            // SQLite would follow a link or block on a FIFO, whoever owns it.
            guard status.st_mode & S_IFMT == S_IFREG else {
                throw .specialFile(path: shown, kind: kind(of: status.st_mode))
            }
            if !allowsShared { try checkTrust(of: shown, status: status, database: named) }
        }
    }

    private static func checkTrust(of file: String, status: stat, database: String)
        throws(DatabaseError)
    {
        let user = geteuid()
        if status.st_uid != user {
            throw .untrustedFile(
                path: database, file: file,
                reason: "it belongs to user id \(status.st_uid), not to this user (\(user))")
        }
        if status.st_mode & 0o022 != 0 {
            let mode = String(Int(status.st_mode & 0o777), radix: 8)
            throw .untrustedFile(
                path: database, file: file,
                reason: "other users may write it (mode \(mode)); chmod go-w it")
        }
    }

    /// The database's files that another user owns or that group or others may write.
    static func sharedFiles(of path: String) -> [String] {
        ([path] + companions(of: path)).filter { file in
            var status = stat()
            guard lstat(file, &status) == 0 else { return false }
            return status.st_uid != geteuid() || status.st_mode & 0o022 != 0
        }
    }

    private static func kind(of mode: mode_t) -> String {
        switch mode & S_IFMT {
        case S_IFIFO: "a FIFO"
        case S_IFCHR: "a character device"
        case S_IFBLK: "a block device"
        case S_IFSOCK: "a socket"
        case S_IFDIR: "a directory"
        case S_IFLNK: "a symbolic link"
        default: "not a regular file"
        }
    }

    private static func error(for code: Int32, path: String) -> DatabaseError {
        switch code {
        case EACCES, EPERM: .accessDenied(path: path)
        default: .cannotCreate(path: path, reason: String(cString: strerror(code)))
        }
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
