import PrefsKit

/// `prefs bookmark`: bookmarks of the app's items.
enum BookmarkGroup: CommandGroup {
    static var name: String { "bookmark" }
    static var aliases: [String] { ["bookmarks"] }
    static let spec = CommandSpec(
        group: Self.self, abstract: "Add, list, search and manage bookmarks.",
        subcommands: [
            SubcommandEntry(BookmarkAddCommand.self),
            SubcommandEntry(BookmarkEditCommand.self),
            SubcommandEntry(BookmarkTagCommand.self),
            SubcommandEntry(BookmarkUntagCommand.self),
            SubcommandEntry(BookmarkRemoveCommand.self),
            SubcommandEntry(BookmarkToggleCommand.self),
            SubcommandEntry(BookmarkListCommand.self),
            SubcommandEntry(BookmarkSearchCommand.self),
            SubcommandEntry(BookmarkCountCommand.self),
            SubcommandEntry(BookmarkMoveCommand.self),
            SubcommandEntry(BookmarkHistoryCommand.self),
            SubcommandEntry(BookmarkImportCommand.self),
            SubcommandEntry(BookmarkExportCommand.self),
        ])
}
