import PrefsKit

/// `prefs rename OLD NEW`: moves a stored value, in one transaction.
struct RenameCommand: RunnableCommand {
    static var name: String { "rename" }
    static var aliases: [String] { ["mv"] }
    static let old = Argument<String>(
        "old", help: "The key that holds the value.", completesKeys: true)
    static let new = Argument<String>("new", help: "The key to move it to.")
    static let force = Flag("force", short: "f", help: "Replace a value stored under NEW.")
    static let spec = CommandSpec(
        Self.self, abstract: "Move a stored value to another key.",
        discussion: """
            In one transaction, recorded in the history as a set of NEW and a removal of OLD.
            A value already stored under NEW is kept unless --force is given.
            """,
        arguments: [old.spec, new.spec], options: [force.spec], scope: .preferences)

    var old: String
    var new: String
    var force = false

    func run(_ context: CommandContext) throws {
        try PreferenceStore.validate(key: old)
        try PreferenceStore.validate(key: new)
        guard let database = try context.openExistingForWriting() else {
            throw context.noValue(old)
        }
        let store = PreferenceStore(database: database, suite: context.suite)
        let value: PreferenceValue
        do {
            value = try store.renameKey(old, to: new, overwriting: force)
        } catch PreferenceError.noValue {
            throw context.noValue(old)
        } catch PreferenceError.wouldOverwrite {
            throw CommandFailure(
                "'\(ValueText.shown(new))' already has a value; pass --force to replace it",
                exitCode: CommandFailure.usage)
        }
        if context.globals.isJSON {
            context.printJSON(
                JSONShapes.preference(
                    suite: context.suite, key: new, value: value, isDefault: false))
        } else {
            context.inform("Renamed '\(ValueText.shown(old))' to '\(ValueText.shown(new))'")
        }
    }
}

extension RenameCommand {
    init(parsing parsed: ParsedArguments) throws(UsageError) {
        self.init(old: try parsed[Self.old], new: try parsed[Self.new], force: parsed[Self.force])
    }
}
