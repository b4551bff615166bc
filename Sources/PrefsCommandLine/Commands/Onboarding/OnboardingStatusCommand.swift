import PrefsKit

/// `prefs onboarding status`.
struct OnboardingStatusCommand: RunnableCommand {
    static var name: String { "status" }
    static let spec = CommandSpec(
        Self.self, abstract: "Print whether the walkthrough shows and its current page.",
        options: [OnboardingGroup.pages.spec],
        scope: .preferences)

    var pageCount: Int? = nil

    func run(_ context: CommandContext) throws {
        try context.onboarding(.status, pageCount: pageCount)
    }
}

extension OnboardingStatusCommand {
    init(parsing parsed: ParsedArguments) throws(UsageError) {
        self.init(pageCount: try parsed[OnboardingGroup.pages])
    }
}
