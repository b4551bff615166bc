import PrefsKit

/// `prefs onboarding next`.
struct OnboardingNextCommand: RunnableCommand {
    static var name: String { "next" }
    static let spec = CommandSpec(
        Self.self, abstract: "Go to the next page, or complete the walkthrough on the last page.",
        options: [OnboardingGroup.pages.spec],
        scope: .preferences)

    var pageCount: Int? = nil

    func run(_ context: CommandContext) throws {
        try context.onboarding(.next, pageCount: pageCount)
    }
}

extension OnboardingNextCommand {
    init(parsing parsed: ParsedArguments) throws(UsageError) {
        self.init(pageCount: try parsed[OnboardingGroup.pages])
    }
}
