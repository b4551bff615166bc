import PrefsKit

#if canImport(FoundationEssentials) && !PREFS_FULL_FOUNDATION
    import FoundationEssentials
#else
    import Foundation
#endif

/// The arguments and options that describe a bookmark (`add` and `toggle`), and how they
/// read back as a ``BookmarkDraft``.
enum BookmarkDraftDeclarations {
    static let kind = Argument<String>(
        "kind", help: "What kind of item, such as trip, movie or article.")
    static let itemID = Argument<String>("item-id", help: "The app's identifier of the item.")
    static let url = Option<String>("url", value: "url", help: "A URL.")
    static let category = Option<String>(
        "category", value: "category", help: "A category (a top-level folder).")
    static let folder = Option<String>(
        "folder", value: "path",
        help: "A folder path such as 'Work/Projects' (a '/' in a name is written '\\/').")
    static let tag = RepeatedOption<String>("tag", value: "tag", help: "A tag; repeat for more.")
    static let note = Option<String>("note", value: "text", help: "A note.")

    static let arguments = [kind.spec, itemID.spec]

    /// The options; `--title` is required where the command always adds.
    static func options(titleRequired: Bool) -> [OptionSpec] {
        let title = Option<String>(
            "title", value: "title",
            help: titleRequired ? "The title." : "The title (needed to add, not to remove).",
            isRequired: titleRequired)
        return [title.spec, url.spec, category.spec, folder.spec, tag.spec, note.spec]
    }

    /// The draft; its title is empty when `--title` was not given (only `toggle` allows that).
    static func draft(from parsed: ParsedArguments) throws(UsageError) -> BookmarkDraft {
        let given = try edit(from: parsed)
        return BookmarkDraft(
            kind: try parsed[Self.kind], itemID: try parsed[Self.itemID],
            title: parsed.value("title") ?? "", url: given.url, category: given.category,
            folder: given.folder, tags: try parsed[Self.tag], note: given.note)
    }

    /// What the options shared with `add` change of a stored bookmark: the URL, category,
    /// folder and note, each only when given (the title and tags are each command's own).
    static func edit(from parsed: ParsedArguments) throws(UsageError) -> BookmarkEdit {
        var edit = BookmarkEdit()
        if let text = try parsed[Self.url] {
            guard let parsedURL = URL(string: text), parsedURL.scheme != nil else {
                throw UsageError(
                    "Invalid value '\(text)' for '--url': expected an absolute URL",
                    path: parsed.path)
            }
            edit.url = parsedURL
        }
        edit.folder = try folderPath(try parsed[Self.folder], in: parsed)
        edit.category = try parsed[Self.category]
        if edit.folder != nil && edit.category != nil {
            throw UsageError(
                "Pass either --category or --folder, not both (a category is a top-level folder)",
                path: parsed.path)
        }
        edit.note = try parsed[Self.note]
        return edit
    }

    /// A `--folder` path, refusing one without any name.
    static func folderPath(_ text: String?, in parsed: ParsedArguments) throws(UsageError)
        -> [String]?
    {
        guard let text else { return nil }
        let path = BookmarkFolderPath.components(text)
        guard !path.isEmpty else {
            throw UsageError(
                "Invalid value '\(text)' for '--folder': expected a folder path such as 'Work/Projects'",
                path: parsed.path)
        }
        return path
    }

    /// A bookmark id: a positive integer.
    static func bookmarkID(_ text: String, in parsed: ParsedArguments, label: String)
        throws(UsageError) -> Int64
    {
        guard let id = Int64(text), id > 0 else {
            throw UsageError(
                "Invalid value '\(text)' for '\(label)': expected a bookmark id (a positive integer)",
                path: parsed.path)
        }
        return id
    }
}
