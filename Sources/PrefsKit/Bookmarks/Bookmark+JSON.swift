#if canImport(FoundationEssentials) && !PREFS_FULL_FOUNDATION
    import FoundationEssentials
#else
    import Foundation
#endif

extension Bookmark {
    /// The bookmark as the JSON object of docs/cli.md, "JSON shapes" (`prefs bookmark list --json`).
    public var jsonValue: Prefs.JSONValue {
        .object([
            ("id", .integer(id)), ("kind", .string(kind)), ("itemID", .string(itemID)),
            ("title", .string(title)), ("url", url.map { .string($0.absoluteString) } ?? .null),
            ("category", category.map(JSONValue.string) ?? .null),
            ("folder", .array(folder.map(JSONValue.string))),
            ("tags", .array(tags.map(JSONValue.string))),
            ("note", note.map(JSONValue.string) ?? .null),
            ("position", .integer(position)),
            ("createdAt", .string(ISO8601.string(from: createdAt))),
            ("updatedAt", .string(ISO8601.string(from: updatedAt))),
        ])
    }
}

/// A bookmark read from the JSON export: the draft and whatever generated fields it had.
struct ImportedBookmark {
    var draft: BookmarkDraft
    var id: Int64?
    var position: Int?
    var createdAt: Date?
    var updatedAt: Date?

    /// Reads one object of the JSON export.
    ///
    /// - Throws: ``BookmarkError/malformedImport(_:)`` naming the element and field.
    init(json: JSONValue, index: Int) throws(BookmarkError) {
        let place = "bookmarks[\(index)]"
        guard case .object = json else { throw .malformedImport("\(place) is not an object") }
        func string(_ field: String, required: Bool = false) throws(BookmarkError) -> String? {
            switch json[field] {
            case .string(let text)?: return text
            case nil, .null?:
                if required { throw .malformedImport("\(place) has no string '\(field)'") }
                return nil
            default: throw .malformedImport("\(place).\(field) is not a string")
            }
        }
        func date(_ field: String) throws(BookmarkError) -> Date? {
            guard let text = try string(field) else { return nil }
            guard let date = ISO8601.date(from: text) else {
                throw .malformedImport("\(place).\(field) '\(text)' is not an ISO 8601 date")
            }
            return date
        }
        func integer(_ field: String) throws(BookmarkError) -> Int? {
            switch json[field] {
            case nil, .null?: return nil
            case .number(let text)?:
                guard let value = Int(text), value >= 0 else {
                    throw .malformedImport("\(place).\(field) is not a non-negative integer")
                }
                return value
            default: throw .malformedImport("\(place).\(field) is not a number")
            }
        }
        var url: URL?
        if let text = try string("url") {
            guard let parsed = URL(string: text) else {
                throw .malformedImport("\(place).url '\(text)' is not a URL")
            }
            url = parsed
        }
        var tags: [String] = []
        switch json["tags"] {
        case nil, .null?: break
        case .array(let elements)?:
            for element in elements {
                guard case .string(let tag) = element else {
                    throw .malformedImport("\(place).tags holds a value that is not a string")
                }
                tags.append(tag)
            }
        default: throw .malformedImport("\(place).tags is not an array")
        }
        var folder: [String]?
        switch json["folder"] {
        case nil, .null?: break
        case .array(let elements)?:
            folder = []
            for element in elements {
                guard case .string(let name) = element else {
                    throw .malformedImport("\(place).folder holds a value that is not a string")
                }
                folder?.append(name)
            }
        default: throw .malformedImport("\(place).folder is not an array of folder names")
        }
        draft = BookmarkDraft(
            kind: try string("kind", required: true) ?? "",
            itemID: try string("itemID", required: true) ?? "",
            title: try string("title", required: true) ?? "",
            url: url, category: try string("category"), folder: folder, tags: tags,
            note: try string("note"))
        id = try integer("id").map(Int64.init)
        position = try integer("position")
        createdAt = try date("createdAt")
        updatedAt = try date("updatedAt")
    }
}
