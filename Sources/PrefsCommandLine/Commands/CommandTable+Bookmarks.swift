import PrefsKit

#if canImport(FoundationEssentials) && !PREFS_FULL_FOUNDATION
    import FoundationEssentials
#else
    import Foundation
#endif

extension CommandTable {
    static let sortNames = BookmarkQuery.Sort.allCases.map(\.rawValue)
    static let bookmarkFormatNames = BookmarkFormat.allCases.map(\.rawValue)
    static let groupingNames = BookmarkGrouping.allCases.map(\.rawValue)

    static let draftArguments = [
        ArgumentSpec(name: "kind", help: "What kind of item, such as trip, movie or article."),
        ArgumentSpec(name: "item-id", help: "The app's identifier of the item."),
    ]

    static let draftOptions = [
        OptionSpec(
            name: "title", kind: .value(name: "title"), help: "The title.", isRequired: true),
        OptionSpec(name: "url", kind: .value(name: "url"), help: "A URL."),
        OptionSpec(
            name: "category", kind: .value(name: "category"),
            help: "A category (a top-level folder)."),
        OptionSpec(
            name: "folder", kind: .value(name: "path"),
            help: "A folder path such as 'Work/Projects' (a '/' in a name is written '\\/')."),
        OptionSpec(name: "tag", kind: .repeatedValue(name: "tag"), help: "A tag; repeat for more."),
        OptionSpec(name: "note", kind: .value(name: "text"), help: "A note."),
    ]

    static func draft(from parsed: ParsedArguments) throws(UsageError) -> BookmarkDraft {
        let title = parsed.value("title") ?? ""  // present: the parser checks required options
        var url: URL?
        if let text = parsed.value("url") {
            guard let parsedURL = URL(string: text), parsedURL.scheme != nil else {
                throw UsageError(
                    "Invalid value '\(text)' for '--url': expected an absolute URL",
                    path: parsed.path)
            }
            url = parsedURL
        }
        let folder = try folderPath(parsed)
        if folder != nil && parsed.value("category") != nil {
            throw UsageError(
                "Pass either --category or --folder, not both (a category is a top-level folder)",
                path: parsed.path)
        }
        return BookmarkDraft(
            kind: parsed.positionals[0], itemID: parsed.positionals[1], title: title, url: url,
            category: parsed.value("category"), folder: folder,
            tags: parsed.repeated("tag"), note: parsed.value("note"))
    }

    /// The `--folder` path, refusing one without any name.
    static func folderPath(_ parsed: ParsedArguments) throws(UsageError) -> [String]? {
        guard let text = parsed.value("folder") else { return nil }
        let path = BookmarkFolderPath.components(text)
        guard !path.isEmpty else {
            throw UsageError(
                "Invalid value '\(text)' for '--folder': expected a folder path such as 'Work/Projects'",
                path: parsed.path)
        }
        return path
    }

    static func bookmarkID(_ text: String, path: [String], label: String) throws(UsageError)
        -> Int64
    {
        guard let id = Int64(text), id > 0 else {
            throw UsageError(
                "Invalid value '\(text)' for '\(label)': expected a bookmark id (a positive integer)",
                path: path)
        }
        return id
    }

    static let bookmark = CommandSpec(
        name: "bookmark", aliases: ["bookmarks"],
        abstract: "Add, list, search and manage bookmarks.",
        subcommands: [
            CommandSpec(
                name: "add", abstract: "Bookmark an item; an item already bookmarked is updated.",
                arguments: draftArguments, options: draftOptions,
                build: { parsed in .bookmarkAdd(try draft(from: parsed)) }),
            CommandSpec(
                name: "remove", aliases: ["rm", "delete"],
                abstract: "Remove a bookmark by item or by --id.",
                arguments: [
                    ArgumentSpec(name: "kind", help: "The kind of the item.", isOptional: true),
                    ArgumentSpec(
                        name: "item-id", help: "The app's identifier of the item.", isOptional: true
                    ),
                ],
                options: [
                    OptionSpec(
                        name: "id", kind: .value(name: "id"),
                        help: "The bookmark's id instead of its item.")
                ],
                build: { parsed in
                    if let id = parsed.value("id") {
                        guard parsed.positionals.isEmpty else {
                            throw UsageError(
                                "Pass either KIND ITEM-ID or --id, not both", path: parsed.path)
                        }
                        return .bookmarkRemove(
                            .id(try bookmarkID(id, path: parsed.path, label: "--id")))
                    }
                    guard parsed.positionals.count == 2 else {
                        throw UsageError(
                            parsed.positionals.isEmpty
                                ? "Missing expected argument '<kind>' (or --id)"
                                : "Missing expected argument '<item-id>'",
                            path: parsed.path)
                    }
                    return .bookmarkRemove(
                        .item(kind: parsed.positionals[0], itemID: parsed.positionals[1]))
                }),
            CommandSpec(
                name: "toggle",
                abstract: "Bookmark an item, or remove its bookmark (the detail screen's button).",
                arguments: draftArguments, options: draftOptions,
                build: { parsed in .bookmarkToggle(try draft(from: parsed)) }),
            CommandSpec(
                name: "list", aliases: ["ls"],
                abstract: "List bookmarks, filtered, sorted and paged.",
                options: [
                    OptionSpec(name: "kind", kind: .value(name: "kind"), help: "Only this kind."),
                    OptionSpec(
                        name: "category", kind: .value(name: "category"),
                        help: "Only this category."),
                    OptionSpec(
                        name: "folder", kind: .value(name: "path"),
                        help: "Only this folder and its subfolders."),
                    OptionSpec(
                        name: "tag", kind: .value(name: "tag"),
                        help: "Only bookmarks with this tag."),
                    OptionSpec(
                        name: "sort", kind: .value(name: "order"),
                        help: "position (default), created or title.", completions: sortNames),
                    OptionSpec(
                        name: "reverse", short: "r", kind: .flag, help: "Reverse the order."),
                    OptionSpec(
                        name: "limit", short: "n", kind: .value(name: "n"),
                        help: "Show at most this many."),
                    OptionSpec(
                        name: "offset", kind: .value(name: "n"), help: "Skip this many first."),
                    OptionSpec(
                        name: "group-by", kind: .value(name: "field"),
                        help: "Group by category (the folder's name) or folder (its whole path).",
                        completions: groupingNames),
                ],
                build: { parsed in
                    let grouping = try parsed.choice("group-by", from: groupingNames).flatMap(
                        BookmarkGrouping.init(rawValue:))
                    let query = BookmarkQuery(
                        kind: parsed.value("kind"), category: parsed.value("category"),
                        folder: try folderPath(parsed),
                        tag: parsed.value("tag"),
                        sort: try parsed.choice("sort", from: sortNames).flatMap(
                            BookmarkQuery.Sort.init(rawValue:)) ?? .position,
                        isDescending: parsed.flag("reverse"),
                        limit: try parsed.integer("limit", in: 0...Int.max),
                        offset: try parsed.integer("offset", in: 0...Int.max) ?? 0)
                    return .bookmarkList(query, grouping: grouping)
                }),
            CommandSpec(
                name: "search",
                abstract:
                    "Search titles, categories, tags, notes and URLs; end a word with * for a prefix.",
                arguments: [
                    ArgumentSpec(
                        name: "query", help: "Words that must all match.", isRepeating: true)
                ],
                options: [
                    OptionSpec(
                        name: "limit", short: "n", kind: .value(name: "n"),
                        help: "Show at most this many (default: 50).")
                ],
                build: { parsed in
                    .bookmarkSearch(
                        text: parsed.positionals.joined(separator: " "),
                        limit: try parsed.integer("limit", in: 1...Int.max) ?? 50)
                }),
            CommandSpec(
                name: "move", abstract: "Move a bookmark to a position within its kind.",
                arguments: [ArgumentSpec(name: "id", help: "The bookmark's id.")],
                options: [
                    OptionSpec(
                        name: "to", kind: .value(name: "position"),
                        help: "The new position, from 0.", isRequired: true)
                ],
                build: { parsed in
                    // Present: the option is required.
                    let position = try parsed.integer("to", in: 0...Int.max) ?? 0
                    return .bookmarkMove(
                        id: try bookmarkID(parsed.positionals[0], path: parsed.path, label: "<id>"),
                        position: position)
                }),
            CommandSpec(
                name: "import",
                abstract: "Import bookmarks from our JSON or a browser's file, all or nothing.",
                discussion: """
                    Reads our JSON export, a Netscape bookmark HTML file (every browser exports
                    one), Chromium's Bookmarks file (Chrome, Brave, Edge, Vivaldi), Firefox's
                    places.sqlite (read-only, safe while Firefox runs) and Safari's
                    Bookmarks.plist, told apart by their content. The same URL twice becomes one
                    bookmark; links that cannot be imported are listed with their line.
                    """,
                arguments: [
                    ArgumentSpec(name: "file", help: "The input file, or - for standard input.")
                ],
                options: [
                    OptionSpec(
                        name: "format", kind: .value(name: "format"),
                        help: "json, html, chromium, firefox or safari (default: detected).",
                        completions: BookmarkImportFormatName.names)
                ],
                build: { parsed in
                    let name = try parsed.choice("format", from: BookmarkImportFormatName.names)
                    return .bookmarkImport(
                        format: BookmarkImportFormatName.all.first { $0.name == name }?.format,
                        file: parsed.positionals[0])
                }),
            CommandSpec(
                name: "export", abstract: "Export bookmarks as JSON or as a browser's HTML file.",
                arguments: [
                    ArgumentSpec(
                        name: "file", help: "The output file (default: standard output).",
                        isOptional: true)
                ],
                options: [
                    OptionSpec(
                        name: "format", kind: .value(name: "format"),
                        help: "json (default) or html.", completions: bookmarkFormatNames)
                ],
                build: { parsed in
                    .bookmarkExport(
                        format: try parsed.choice("format", from: bookmarkFormatNames).flatMap(
                            BookmarkFormat.init(rawValue:)) ?? .json,
                        file: parsed.positional(0))
                }),
        ])
}
