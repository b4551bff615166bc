#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Where the database file lives when no path is given.
public enum DatabaseLocation {
    /// The default path: `$PREFS_DB`, else `$XDG_DATA_HOME/prefs/prefs.sqlite`, else
    /// `~/.local/share/prefs/prefs.sqlite` (`~/Library/Application Support/prefs/` on macOS).
    ///
    /// - Parameter environment: The environment to read; the process's by default.
    public static func defaultPath(environment: [String: String] = processEnvironment()) -> String {
        if let path = environment["PREFS_DB"], !path.isEmpty { return path }
        #if os(macOS)
            let home = environment["HOME"] ?? ""
            return home + "/Library/Application Support/prefs/prefs.sqlite"
        #else
            if let dataHome = environment["XDG_DATA_HOME"], dataHome.hasPrefix("/") {
                return dataHome + "/prefs/prefs.sqlite"
            }
            let home = environment["HOME"] ?? ""
            return home + "/.local/share/prefs/prefs.sqlite"
        #endif
    }

    /// The process environment as a dictionary.
    public static func processEnvironment() -> [String: String] {
        var result: [String: String] = [:]
        var pointer = environ
        while let entry = pointer.pointee {
            let text = String(cString: entry)
            if let equals = text.firstIndex(of: "=") {
                result[String(text[..<equals])] = String(text[text.index(after: equals)...])
            }
            pointer += 1
        }
        return result
    }
}
