#if canImport(FoundationEssentials) && !PREFS_FULL_FOUNDATION
    import FoundationEssentials
#else
    import Foundation
#endif

/// Bookmarks read from a file, before they are stored: its folder tree, its links, and
/// what was skipped or looked wrong, each with its line (or place, in formats without
/// lines).
public struct BookmarkImportDocument: Sendable {
    /// A folder of the file.
    public struct Folder: Sendable, Hashable {
        /// The folder's name.
        public var name: String
        /// The index in ``BookmarkImportDocument/folders`` of the enclosing folder; nil at
        /// the top level. A parent always comes before its children.
        public var parent: Int?
        /// The folder's description.
        public var description: String?
        /// When the folder was made, when the file says.
        public var createdAt: Date?
        /// When the folder last changed, when the file says.
        public var updatedAt: Date?

        /// Creates a folder.
        public init(
            name: String, parent: Int?, description: String? = nil, createdAt: Date? = nil,
            updatedAt: Date? = nil
        ) {
            self.name = name
            self.parent = parent
            self.description = description
            self.createdAt = createdAt
            self.updatedAt = updatedAt
        }
    }

    /// A link of the file.
    public struct Link: Sendable, Hashable {
        /// What to store; its folder is set from ``folder`` when that is not nil.
        public var draft: BookmarkDraft
        /// The index in ``BookmarkImportDocument/folders`` of the link's folder; nil when
        /// the draft's own folder or category says (or at the top level).
        public var folder: Int?
        /// The id it had, from our JSON export.
        public var id: Int64?
        /// The place among the bookmarks of its kind, from our own exports.
        public var position: Int?
        /// When it was made, when the file says.
        public var createdAt: Date?
        /// When it last changed, when the file says.
        public var updatedAt: Date?
        /// Where it is in the file.
        public var place: Place

        /// Creates a link.
        public init(
            draft: BookmarkDraft, folder: Int? = nil, id: Int64? = nil, position: Int? = nil,
            createdAt: Date? = nil, updatedAt: Date? = nil, place: Place
        ) {
            self.draft = draft
            self.folder = folder
            self.id = id
            self.position = position
            self.createdAt = createdAt
            self.updatedAt = updatedAt
            self.place = place
        }
    }

    /// Where something is in a file: a line, or a description of the place in formats
    /// without lines (`roots.bookmark_bar.children[2]`).
    public enum Place: Sendable, Hashable, CustomStringConvertible {
        /// A 1-based line.
        case line(Int)
        /// A place in a structured file.
        case path(String)

        /// The line, when the place is one.
        public var line: Int? {
            if case .line(let line) = self { line } else { nil }
        }

        /// The warning, in one line.
        public var description: String {
            switch self {
            case .line(let line): "line \(line)"
            case .path(let path): path
            }
        }
    }

    /// Something skipped or doubtful, and where.
    public struct Issue: Sendable, Hashable, CustomStringConvertible {
        /// Where it is.
        public var place: Place
        /// What happened, as a phrase.
        public var message: String

        /// Creates an issue.
        public init(place: Place, message: String) {
            self.place = place
            self.message = message
        }

        /// The warning, in one line.
        public var description: String { "\(place): \(message)" }
    }

    /// The file formats that import reads.
    public enum Format: String, Sendable, CaseIterable {
        /// Our own JSON export.
        case json = "prefs JSON"
        /// The Netscape bookmark file that every browser exports.
        case html = "Netscape bookmark HTML"
        /// Chromium's `Bookmarks` file (Chrome, Brave, Edge, Vivaldi).
        case chromium = "Chromium Bookmarks JSON"
        /// Firefox's `places.sqlite`.
        case firefox = "Firefox places.sqlite"
        /// Safari's `Bookmarks.plist`.
        case safari = "Safari Bookmarks.plist"
    }

    /// The most folders deep that import keeps; deeper ones merge into their ancestor at
    /// this depth, with a warning.
    public static let maximumFolderDepth = 256

    /// The format the file was in.
    public var format: Format
    /// The folders, parents before their children, in file order.
    public var folders: [Folder] = []
    /// The links, in file order.
    public var links: [Link] = []
    /// Links that were not imported, and why.
    public var skipped: [Issue] = []
    /// Doubtful things that were imported anyway (an invalid date, a stray tag).
    public var warnings: [Issue] = []

    /// Creates an empty document.
    public init(format: Format) {
        self.format = format
    }

    /// The folder names from the top down to a folder (`[]` for nil).
    public func path(of folder: Int?) -> [String] {
        var names: [String] = []
        var current = folder
        while let index = current, folders.indices.contains(index), names.count <= folders.count {
            names.append(folders[index].name)
            current = folders[index].parent
        }
        return names.reversed()
    }

    /// Adds a folder under a parent, or when the parent is already
    /// ``maximumFolderDepth`` deep, returns the parent with a warning.
    ///
    /// - Returns: The index of the folder that holds what the file puts in this one.
    package mutating func addFolder(_ folder: Folder, depths: inout [Int], place: Place) -> Int? {
        let depth = folder.parent.map { depths[$0] + 1 } ?? 1
        if depth > Self.maximumFolderDepth {
            if !warnings.contains(where: { $0.message.hasPrefix("folders nested deeper") }) {
                warnings.append(
                    Issue(
                        place: place,
                        message: "folders nested deeper than \(Self.maximumFolderDepth) levels"
                            + " are merged into their ancestor at that depth"))
            }
            return folder.parent
        }
        folders.append(folder)
        depths.append(depth)
        return folders.count - 1
    }

    /// Text made fit for a title or name: runs of white space (line breaks included) as
    /// one space, trimmed, control characters removed; whether any were.
    package static func cleaned(_ text: String) -> (text: String, hadControlCharacters: Bool) {
        // Most titles need nothing: no control or line-break bytes, no doubled, leading or
        // trailing spaces.
        let scan = { (bytes: UnsafeBufferPointer<UInt8>) -> Bool in
            var previous: UInt8 = 0x20
            for byte in bytes {
                if byte < 0x20 || byte == 0x7F || (byte == 0x20 && previous == 0x20) { return true }
                previous = byte
            }
            return previous == 0x20
        }
        var copy = text
        if !copy.withUTF8(scan) { return (text, false) }
        if text.isEmpty { return ("", false) }
        var output = ""
        var hadControl = false
        var pendingSpace = false
        for scalar in text.unicodeScalars {
            if scalar == " " || scalar == "\t" || scalar == "\n" || scalar == "\r" {
                pendingSpace = !output.isEmpty
                continue
            }
            if scalar.value < 0x20 || scalar.value == 0x7F {
                hadControl = true
                continue
            }
            if pendingSpace {
                output.unicodeScalars.append(" ")
                pendingSpace = false
            }
            output.unicodeScalars.append(scalar)
        }
        return (output, hadControl)
    }

    /// The URL of a link, or why it is not imported as a bookmark.
    package static func linkURL(_ text: String) -> (url: URL?, reasonToSkip: String?) {
        if text.isEmpty { return (nil, "a link without a URL") }
        func hasScheme(_ scheme: String) -> Bool {
            text.utf8.count >= scheme.utf8.count
                && zip(text.utf8, scheme.utf8).allSatisfy { $0 | 0x20 == $1 | 0x20 }
        }
        if hasScheme("javascript:") { return (nil, "a javascript: bookmarklet is not a link") }
        if hasScheme("place:") { return (nil, "a Firefox query (place:) is not a link") }
        // A link needs a scheme: 'foo.com' or 'b0rked' names nothing a browser could open.
        guard let url = URL(string: text), let scheme = url.scheme, !scheme.isEmpty else {
            return (nil, "'\(text)' is not a URL (it has no scheme, such as https:)")
        }
        return (url, nil)
    }
}

extension BookmarkImportDocument {
    /// A note's text: line breaks kept, other control characters removed, trimmed.
    package static func cleanedNote(_ text: String) -> String {
        var output = ""
        for scalar in text.unicodeScalars
        where scalar.value >= 0x20 || scalar == "\n" || scalar == "\t" {
            output.unicodeScalars.append(scalar)
        }
        return output.trimmingWhitespace
    }
}
