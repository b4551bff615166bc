import FoundationEssentials

/// A folder of bookmarks, as browsers keep them: a name inside a parent folder.
///
/// Folders come from imports (a browser's tree, empty folders and same-named siblings
/// included) and from drafts that name a ``BookmarkDraft/folder``. A bookmark whose draft
/// names only a category is in the top-level folder of that name, without a folder row.
public struct BookmarkFolder: Sendable, Hashable, Identifiable {
    /// The generated id.
    public let id: Int64
    /// The enclosing folder; nil at the top level.
    public var parentID: Int64?
    /// The folder's name, never empty.
    public var name: String
    /// The folder's description (a `<DD>` after its `<H3>` in a browser's file).
    public var description: String?
    /// The order among the folder's siblings.
    public var position: Int
    /// When the folder was made, when the file said.
    public var createdAt: Date?
    /// When the folder last changed, when the file said.
    public var updatedAt: Date?

    /// Creates a folder value (as read from the store).
    public init(
        id: Int64, parentID: Int64?, name: String, description: String? = nil, position: Int,
        createdAt: Date? = nil, updatedAt: Date? = nil
    ) {
        self.id = id
        self.parentID = parentID
        self.name = name
        self.description = description
        self.position = position
        self.createdAt = createdAt
        self.updatedAt = updatedAt
    }
}

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
