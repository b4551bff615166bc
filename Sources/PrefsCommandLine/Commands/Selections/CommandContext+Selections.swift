import PrefsKit

extension CommandContext {
    func changeSelection(_ name: String, _ change: (SelectionStore) throws -> Selection) throws {
        guard let database = try openExistingForWriting() else {
            throw SelectionError.notFound(name: name)
        }
        printSelection(try change(SelectionStore(database: database)))
    }

    func printSelection(_ selection: Selection) {
        if globals.isJSON {
            printJSON(JSONShapes.selection(selection))
        } else {
            console.print((selection.index.map(String.init) ?? "none") + "\n")
        }
    }
}

extension JSONShapes {
    static func selection(_ selection: Selection) -> JSONValue {
        .object([
            ("name", .string(selection.name)),
            ("index", selection.index.map { .integer($0) } ?? .null),
            ("count", .integer(selection.count)), ("policy", .string(selection.policy.rawValue)),
            ("itemID", selection.itemID.map(JSONValue.string) ?? .null),
        ])
    }
}
