import PrefsKit

/// `prefs onboarding`: the walkthrough that shows until `hasViewedWalkthrough` is set.
enum OnboardingGroup: CommandGroup {
    static var name: String { "onboarding" }
    static let pages = Option<Int>(
        "pages", value: "n", help: "The number of pages (default: 3).", in: 1...Int.max)
    static let spec = CommandSpec(
        group: Self.self, abstract: "Show or drive the onboarding walkthrough.",
        discussion:
            "Next moves to the next page and, on the last page, completes; skip completes at once.",
        subcommands: [
            SubcommandEntry(OnboardingStatusCommand.self),
            SubcommandEntry(OnboardingNextCommand.self),
            SubcommandEntry(OnboardingSkipCommand.self),
            SubcommandEntry(OnboardingResetCommand.self),
            SubcommandEntry(OnboardingReportCommand.self),
        ],
        defaultSubcommand: "status")
}
