import PrefsKit

/// `prefs completion SHELL`: a completion script made from the commands' declarations.
struct CompletionCommand: RunnableCommand {
    static var name: String { "completion" }
    var opensNoDatabase: Bool { true }
    static let shell = Argument<Shell>("shell", help: "bash, zsh or fish.")
    static let spec = CommandSpec(
        Self.self, abstract: "Print a shell completion script.",
        discussion: """
            bash: mkdir -p ~/.local/share/bash-completion/completions &&
                  prefs completion bash > ~/.local/share/bash-completion/completions/prefs
                  (read by the bash-completion package: apt-get install -y bash-completion)
            zsh:  mkdir -p ~/.zfunc && prefs completion zsh > ~/.zfunc/_prefs, and in ~/.zshrc
                  before compinit: fpath=(~/.zfunc $fpath)
            fish: prefs completion fish > ~/.config/fish/completions/prefs.fish
            """,
        arguments: [shell.spec], scope: [])

    var shell: Shell

    func run(_ context: CommandContext) throws {
        context.console.print(CompletionScript(shell: shell).text)
    }
}

extension CompletionCommand {
    init(parsing parsed: ParsedArguments) throws(UsageError) {
        self.init(shell: try parsed[Self.shell])
    }
}
