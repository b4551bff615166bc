import PrefsKit

/// `prefs onboarding skip`.
struct OnboardingSkipCommand: RunnableCommand {
    static var name: String { "skip" }
    static let spec = CommandSpec(
        Self.self, abstract: "Complete the walkthrough from any page.",
        options: [OnboardingGroup.pages.spec],
        scope: .preferences)

    var pageCount: Int? = nil

    func run(_ context: CommandContext) throws {
        try context.onboarding(.skip, pageCount: pageCount)
    }
}

extension OnboardingSkipCommand {
    init(parsing parsed: ParsedArguments) throws(UsageError) {
        self.init(pageCount: try parsed[OnboardingGroup.pages])
    }
}
