import PrefsKit

extension CommandRunner {
    func listSelections() throws {
        let selections = try openForReading().map { try SelectionStore(database: $0).all() } ?? []
        if globals.isJSON {
            printJSON(.array(selections.map(Self.json)))
        } else {
            console.print(
                selections.map {
                    "\(ValueText.listed($0.name))\t\($0.index.map(String.init) ?? "none")\t\($0.count)\t\($0.policy.rawValue)\n"
                }.joined())
        }
    }

    func showSelection(_ name: String) throws {
        guard
            let selection = try openForReading().flatMap({
                try SelectionStore(database: $0).selection(named: name)
            })
        else { throw SelectionError.notFound(name: name) }
        printSelection(selection)
    }

    func setSelection(
        _ name: String, index: Int, count: Int?, policy: SelectionPolicy?, itemID: String?
    ) throws {
        let store = SelectionStore(database: try openForWriting())
        let selection = try store.database.transaction {
            if let existing = try store.selection(named: name) {
                if let policy, policy != existing.policy {
                    try store.redefine(name, count: count ?? existing.count, policy: policy)
                } else if let count {
                    try store.setCount(count, for: name)
                }
            } else {
                guard let count else {
                    throw CommandFailure(
                        "No selection named '\(name)'; pass --count N to create it",
                        exitCode: CommandFailure.notFound)
                }
                try store.define(name, count: count, policy: policy ?? .clamp)
            }
            return try store.select(index, itemID: itemID, in: name)
        }
        printSelection(selection)
    }

    func changeSelection(_ name: String, _ change: (SelectionStore) throws -> Selection) throws {
        guard let database = try openExistingForWriting() else {
            throw SelectionError.notFound(name: name)
        }
        printSelection(try change(SelectionStore(database: database)))
    }

    private func printSelection(_ selection: Selection) {
        if globals.isJSON {
            printJSON(Self.json(selection))
        } else {
            console.print((selection.index.map(String.init) ?? "none") + "\n")
        }
    }

    static func json(_ selection: Selection) -> JSONValue {
        .object([
            ("name", .string(selection.name)),
            ("index", selection.index.map { .integer($0) } ?? .null),
            ("count", .integer(selection.count)), ("policy", .string(selection.policy.rawValue)),
            ("itemID", selection.itemID.map(JSONValue.string) ?? .null),
        ])
    }
}
