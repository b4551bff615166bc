import PrefsKit

/// `prefs selection`: selected indices of pagers and lists.
enum SelectionGroup: CommandGroup {
    static var name: String { "selection" }
    static var aliases: [String] { ["selections"] }
    static let spec = CommandSpec(
        group: Self.self, abstract: "Read and change selected indices of pagers and lists.",
        subcommands: [
            SubcommandEntry(SelectionListCommand.self),
            SubcommandEntry(SelectionGetCommand.self),
            SubcommandEntry(SelectionSetCommand.self),
            SubcommandEntry(SelectionNextCommand.self),
            SubcommandEntry(SelectionPreviousCommand.self),
            SubcommandEntry(SelectionClearCommand.self),
        ])
}
