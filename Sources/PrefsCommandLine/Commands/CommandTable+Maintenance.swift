import PrefsKit

#if canImport(FoundationEssentials) && !PREFS_FULL_FOUNDATION
    import FoundationEssentials
#else
    import Foundation
#endif

extension CommandTable {
    static let doctor = CommandSpec(
        name: "doctor",
        abstract: "Check the database: schema, journal mode, integrity, permissions, sizes.",
        discussion: """
            Exits 0 when healthy, and 65 when the file is corrupt, is not a prefs database, or
            its bookmark search index is out of step with the tables (after a write by another
            tool). --repair rebuilds that index and removes group and other access from the
            file; a corrupt file cannot be repaired: restore it from a backup.
            """,
        options: [
            OptionSpec(
                name: "repair", kind: .flag, help: "Fix what can be fixed without losing data.")
        ],
        build: { parsed in .doctor(repair: parsed.flag("repair")) })

    static let completion = CommandSpec(
        name: "completion", abstract: "Print a shell completion script.",
        discussion:
            "bash: prefs completion bash > ~/.local/share/bash-completion/completions/prefs",
        arguments: [
            ArgumentSpec(
                name: "shell", help: "bash, zsh or fish.",
                completions: Shell.allCases.map(\.rawValue))
        ],
        build: { parsed in
            guard let shell = Shell(rawValue: parsed.positionals[0]) else {
                throw UsageError(
                    "Invalid value '\(parsed.positionals[0])' for '<shell>': expected one of 'bash', 'zsh', 'fish'",
                    path: parsed.path)
            }
            return .completion(shell: shell)
        })

    static let sync = CommandSpec(
        name: "sync",
        abstract: "Sync preferences and bookmarks with the account's other devices.",
        discussion: """
            One round: pushes this file's changes to the hub (a PostgreSQL database of the
            account), then pulls the other devices'. The first round turns sync on and
            remembers the hub and the account in the file (never a password: it comes from
            ~/.pgpass or PGPASSWORD). Selections and keys declared --device-local stay here.
            A first round that fails turns nothing on. Exits 75 when the hub cannot be
            reached; the changes wait for the next round. A change the hub refuses (it
            breaks the rules, or this device's clock is ahead of the hub's by more than the
            hub's bound) is counted in the round's line; one refused for the clock stays
            pending until the clock is right. 'prefs sync status' shows the state, 'prefs
            sync conflicts' the losing sides, 'prefs sync refused' the changes refused and
            why, 'prefs sync leave' turns sync off (the data stays).
            """,
        arguments: [
            ArgumentSpec(
                name: "what", help: "status, conflicts, refused or leave (default: a round).",
                isOptional: true, completions: ["status", "conflicts", "refused", "leave"])
        ],
        options: [
            OptionSpec(
                name: "hub", kind: .value(name: "uri"),
                help: "The hub's connection string (default: the one remembered)."),
            OptionSpec(
                name: "watch", kind: .flag,
                help: "Keep syncing, soon after each change here or on the hub, until interrupted."),
            OptionSpec(
                name: "limit", short: "n", kind: .value(name: "n"),
                help: "With conflicts or refused: show at most this many (default: 20)."),
        ],
        build: { parsed in
            // Each option belongs to one form; given to another, it would do nothing.
            let what = parsed.positional(0)
            for (option, forms) in [
                ("hub", [nil]), ("watch", [nil]), ("limit", ["conflicts", "refused"]),
            ]
            where (option == "watch" ? parsed.flag(option) : parsed.value(option) != nil)
                && !forms.contains(what)
            {
                throw UsageError(
                    "'--\(option)' does not apply to 'prefs sync\(what.map { " " + $0 } ?? "")'",
                    path: parsed.path)
            }
            switch what {
            case nil:
                return .sync(hub: parsed.value("hub"), watch: parsed.flag("watch"))
            case "status":
                return .syncStatus
            case "conflicts":
                return .syncConflicts(limit: try parsed.integer("limit", in: 1...Int.max) ?? 20)
            case "refused":
                return .syncRefused(limit: try parsed.integer("limit", in: 1...Int.max) ?? 20)
            case "leave":
                return .syncLeave
            case let other?:
                throw UsageError(
                    "Invalid value '\(other)' for '<what>': expected 'status', 'conflicts', 'refused' or 'leave'",
                    path: parsed.path)
            }
        })
}
