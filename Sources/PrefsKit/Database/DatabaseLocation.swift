#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Where the database file lives when no path is given.
public enum DatabaseLocation {
    /// The default path: `$PREFS_DB`, else `$XDG_DATA_HOME/prefs/prefs.sqlite`, else
    /// `~/.local/share/prefs/prefs.sqlite`. On Apple platforms it is
    /// `~/Library/Application Support/prefs/prefs.sqlite`: on macOS in the user's Library, on
    /// iOS, tvOS, watchOS and visionOS (and for a sandboxed Mac app) in the app's container,
    /// whose home is the container.
    ///
    /// - Parameter environment: The environment to read.
    public static func defaultPath(environment: [String: String]) -> String {
        defaultPath { environment[$0] }
    }

    /// The same, reading each variable with `variable` (the process's, by `getenv`, unless
    /// told otherwise: no dictionary of the whole environment is built).
    public static func defaultPath(variable: (String) -> String? = DatabaseLocation.variable)
        -> String
    {
        if let path = variable("PREFS_DB"), !path.isEmpty { return path }
        #if canImport(Darwin)
            let home = variable("HOME") ?? ""
            return home + "/Library/Application Support/prefs/prefs.sqlite"
        #else
            if let dataHome = variable("XDG_DATA_HOME"), dataHome.hasPrefix("/") {
                return dataHome + "/prefs/prefs.sqlite"
            }
            let home = variable("HOME") ?? ""
            return home + "/.local/share/prefs/prefs.sqlite"
        #endif
    }

    /// One variable of the process environment, nil when unset.
    public static func variable(_ name: String) -> String? {
        getenv(name).map { String(cString: $0) }
    }
}
