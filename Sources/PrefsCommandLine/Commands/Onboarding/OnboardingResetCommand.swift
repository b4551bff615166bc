import PrefsKit

/// `prefs onboarding reset`.
struct OnboardingResetCommand: RunnableCommand {
    static var name: String { "reset" }
    static let spec = CommandSpec(
        Self.self, abstract: "Show the walkthrough again from its first page.",
        options: [OnboardingGroup.pages.spec],
        scope: .preferences)

    var pageCount: Int? = nil

    func run(_ context: CommandContext) throws {
        try context.onboarding(.reset, pageCount: pageCount)
    }
}

extension OnboardingResetCommand {
    init(parsing parsed: ParsedArguments) throws(UsageError) {
        self.init(pageCount: try parsed[OnboardingGroup.pages])
    }
}
