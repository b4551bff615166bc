#if canImport(FoundationEssentials) && !PREFS_FULL_FOUNDATION
    import FoundationEssentials
#else
    import Foundation
#endif

/// Folder paths as text: the names from the top joined by `/`, a `/` or `\` inside a name
/// written `\/` or `\\` (`Bookmarks bar/Work/Projects`, `AC\/DC`).
public enum BookmarkFolderPath {
    /// The text of a path.
    public static func text(_ path: [String]) -> String {
        path.map { name in
            guard name.contains(where: { $0 == "/" || $0 == "\\" }) else { return name }
            var escaped = ""
            for character in name {
                if character == "/" || character == "\\" { escaped.append("\\") }
                escaped.append(character)
            }
            return escaped
        }.joined(separator: "/")
    }

    /// The names of a path's text; empty names (from `//` or a leading `/`) are dropped.
    public static func components(_ text: String) -> [String] {
        var names: [String] = []
        var current = ""
        var isEscaped = false
        for character in text {
            if isEscaped {
                current.append(character)
                isEscaped = false
            } else if character == "\\" {
                isEscaped = true
            } else if character == "/" {
                if !current.isEmpty { names.append(current) }
                current = ""
            } else {
                current.append(character)
            }
        }
        if isEscaped { current.append("\\") }
        if !current.isEmpty { names.append(current) }
        return names
    }
}
