import FoundationEssentials
import PrefsKit

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
}
