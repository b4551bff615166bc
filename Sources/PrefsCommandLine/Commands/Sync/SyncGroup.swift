import PrefsKit

/// `prefs sync`: preferences and bookmarks with the account's other devices, through a hub.
enum SyncGroup: CommandGroup {
    static var name: String { "sync" }
    /// The length of the lists of `conflicts` and `refused`.
    static let limit = Option<Int>(
        "limit", short: "n", value: "n", help: "Show at most this many (default: 20).",
        in: 1...Int.max)
    static let spec = CommandSpec(
        group: Self.self,
        abstract: "Sync preferences and bookmarks with the account's other devices.",
        discussion: """
            'prefs sync' runs a round; 'prefs sync status' shows the state, 'prefs sync
            conflicts' the losing sides, 'prefs sync refused' the changes refused and why,
            'prefs sync leave' turns sync off (the data stays), 'prefs sync name' names the
            device for the account's conflict listings.
            """,
        subcommands: [
            SubcommandEntry(SyncRoundCommand.self),
            SubcommandEntry(SyncStatusCommand.self),
            SubcommandEntry(SyncConflictsCommand.self),
            SubcommandEntry(SyncRefusedCommand.self),
            SubcommandEntry(SyncLeaveCommand.self),
            SubcommandEntry(SyncNameCommand.self),
        ],
        defaultSubcommand: "round")
}
