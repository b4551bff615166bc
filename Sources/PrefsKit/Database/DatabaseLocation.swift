import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
    import Foundation
#endif

/// Where the database file lives when no path is given: one file per app, as UserDefaults
/// keeps one domain per app.
///
/// The app is named by ``configure(appIdentifier:)``, else (on Apple platforms) by the
/// bundle identifier, else by the executable's name. Its file is
/// `$XDG_DATA_HOME/prefs/APP/prefs.sqlite`, else `~/.local/share/prefs/APP/prefs.sqlite`; on
/// Apple platforms `~/Library/Application Support/APP/prefs.sqlite` (for a sandboxed Mac app
/// and on iOS, tvOS, watchOS and visionOS, in the app's container, whose home is the
/// container). `$PREFS_DB` names a file for every app instead.
///
/// Before apps had their own files, every app shared `prefs/prefs.sqlite` in the same data
/// folder (``sharedPath(variable:)``). An app with no file of its own keeps reading and
/// writing that one, and `prefs doctor` says how to move it.
public enum DatabaseLocation {
    /// Why the default location cannot be used.
    public enum Problem: Error, Equatable, Sendable, CustomStringConvertible {
        /// The app identifier breaks a rule; the reason says which.
        case invalidAppIdentifier(String, reason: String)
        /// Neither `HOME` nor the password database names a home folder other than `/`.
        case noHomeFolder

        public var description: String {
            switch self {
            case .invalidAppIdentifier(let name, let reason):
                "Invalid app identifier '\(name)': \(reason)"
            case .noHomeFolder:
                "Cannot find the home folder: HOME is unset and the password database names"
                    + " none; set HOME or name the database (PREFS_DB)"
            }
        }
    }

    private static let configured = Mutex<String?>(nil)

    /// Names the app whose file the default location is, once, before the first store
    /// opens it (the app's launch). On Linux an app that names none is known by its
    /// executable's name; on Apple platforms by its bundle identifier.
    ///
    /// - Throws: ``Problem/invalidAppIdentifier(_:reason:)`` for a name that is not 1 to 200
    ///   letters, digits, `.`, `_` or `-`, beginning with a letter or digit.
    public static func configure(appIdentifier: String) throws(Problem) {
        try validate(appIdentifier: appIdentifier)
        configured.withLock { $0 = appIdentifier }
    }

    /// Checks an app identifier: 1 to 200 bytes of letters, digits, `.`, `_` and `-`, the
    /// first a letter or a digit (a bundle identifier qualifies), not ending in `.sqlite`.
    /// No such name reaches outside the data folder or another app's file.
    public static func validate(appIdentifier name: String) throws(Problem) {
        let bytes = Array(name.utf8)
        guard (1...200).contains(bytes.count) else {
            throw .invalidAppIdentifier(name, reason: "it must be 1 to 200 bytes")
        }
        func isAlphanumeric(_ byte: UInt8) -> Bool {
            (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte)
                || (0x61...0x7A).contains(byte)
        }
        guard isAlphanumeric(bytes[0]) else {
            throw .invalidAppIdentifier(name, reason: "it must begin with a letter or a digit")
        }
        guard bytes.allSatisfy({ isAlphanumeric($0) || $0 == 0x2E || $0 == 0x5F || $0 == 0x2D })
        else {
            throw .invalidAppIdentifier(
                name, reason: "it may hold only letters, digits, '.', '_' and '-'")
        }
        guard !name.hasSuffix(".sqlite") else {
            throw .invalidAppIdentifier(name, reason: "it must not end in '.sqlite'")
        }
    }

    /// The app the default location belongs to: the configured identifier, else the bundle
    /// identifier (Apple platforms), else the executable's name (its characters outside the
    /// rules of ``validate(appIdentifier:)`` made `-`).
    public static var appIdentifier: String {
        if let name = configured.withLock({ $0 }) { return name }
        #if canImport(Darwin)
            if let bundle = Bundle.main.bundleIdentifier,
                (try? validate(appIdentifier: bundle)) != nil
            {
                return bundle
            }
        #endif
        let executable = CommandLine.arguments.first?.split(separator: "/").last.map(String.init)
        return inferred(from: executable ?? "")
    }

    /// A name made to keep the rules of ``validate(appIdentifier:)``.
    static func inferred(from name: String) -> String {
        var bytes = name.utf8.prefix(200).map { byte -> UInt8 in
            let allowed =
                (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte)
                || (0x61...0x7A).contains(byte) || byte == 0x2E || byte == 0x5F || byte == 0x2D
            return allowed ? byte : 0x2D
        }
        while let first = bytes.first, first == 0x2E || first == 0x5F || first == 0x2D {
            bytes.removeFirst()
        }
        let text = String(decoding: bytes, as: UTF8.self)
        if text.isEmpty || text.hasSuffix(".sqlite") { return "app" }
        return text
    }

    /// The default path of an app's database (``appIdentifier`` unless named):
    /// `$PREFS_DB` when set; else the app's own file; else, when the app has none yet and
    /// the shared file of old exists, that one.
    ///
    /// - Throws: ``Problem`` for an invalid app identifier or no home folder.
    public static func defaultPath(
        app: String? = nil, variable: (String) -> String? = DatabaseLocation.variable
    ) throws(Problem) -> String {
        if let path = variable("PREFS_DB"), !path.isEmpty { return path }
        let own = try appPath(app: app, variable: variable)
        if !exists(own), let shared = try? sharedPath(variable: variable), exists(shared) {
            return shared
        }
        return own
    }

    /// The same, reading a dictionary.
    public static func defaultPath(app: String? = nil, environment: [String: String])
        throws(Problem) -> String
    {
        try defaultPath(app: app) { environment[$0] }
    }

    /// The app's own file, whether or not it exists (`$PREFS_DB` aside).
    public static func appPath(
        app: String? = nil, variable: (String) -> String? = DatabaseLocation.variable
    ) throws(Problem) -> String {
        let name = app ?? appIdentifier
        try validate(appIdentifier: name)
        return try dataFolder(variable: variable) + "/" + name + "/prefs.sqlite"
    }

    /// The file every app shared before each had its own.
    public static func sharedPath(variable: (String) -> String? = DatabaseLocation.variable)
        throws(Problem) -> String
    {
        #if canImport(Darwin)
            return try dataFolder(variable: variable) + "/prefs/prefs.sqlite"
        #else
            return try dataFolder(variable: variable) + "/prefs.sqlite"
        #endif
    }

    /// The apps that have a file of their own in the data folder, by name.
    public static func apps(variable: (String) -> String? = DatabaseLocation.variable)
        throws(Problem) -> [(app: String, path: String)]
    {
        let folder = try dataFolder(variable: variable)
        guard let directory = opendir(folder) else { return [] }
        defer { closedir(directory) }
        var found: [(app: String, path: String)] = []
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            guard (try? validate(appIdentifier: name)) != nil else { continue }
            let path = folder + "/" + name + "/prefs.sqlite"
            if exists(path) { found.append((name, path)) }
        }
        return found.sorted { Array($0.app.utf8).lexicographicallyPrecedes(Array($1.app.utf8)) }
    }

    /// The folder that holds the apps' folders.
    static func dataFolder(variable: (String) -> String?) throws(Problem) -> String {
        #if canImport(Darwin)
            return try home(variable: variable) + "/Library/Application Support"
        #else
            if let dataHome = variable("XDG_DATA_HOME"), dataHome.hasPrefix("/") {
                return dataHome + "/prefs"
            }
            return try home(variable: variable) + "/.local/share/prefs"
        #endif
    }

    /// `HOME` when it names a folder, else the user's home in the password database; never
    /// `/` (a home of `/` would put the data folder at the root of the system).
    static func home(variable: (String) -> String?) throws(Problem) -> String {
        func usable(_ path: String?) -> String? {
            guard var path, path.hasPrefix("/") else { return nil }
            while path.count > 1, path.hasSuffix("/") { path.removeLast() }
            return path == "/" ? nil : path
        }
        if let home = usable(variable("HOME")) { return home }
        var entry = passwd()
        var result: UnsafeMutablePointer<passwd>?
        var buffer = [CChar](repeating: 0, count: 16_384)
        guard getpwuid_r(geteuid(), &entry, &buffer, buffer.count, &result) == 0,
            result != nil, let directory = entry.pw_dir,
            let home = usable(String(cString: directory))
        else { throw .noHomeFolder }
        return home
    }

    private static func exists(_ path: String) -> Bool {
        var status = stat()
        return lstat(path, &status) == 0
    }

    /// One variable of the process environment, nil when unset.
    public static func variable(_ name: String) -> String? {
        getenv(name).map { String(cString: $0) }
    }
}
