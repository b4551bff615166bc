import PrefsKit

#if canImport(FoundationEssentials) && !PREFS_FULL_FOUNDATION
    import FoundationEssentials
#else
    import Foundation
#endif

extension CommandTable {
    static let onboarding = CommandSpec(
        name: "onboarding", abstract: "Show or drive the onboarding walkthrough.",
        discussion:
            "Next moves to the next page and, on the last page, completes; skip completes at once.",
        subcommands: OnboardingAction.allCases.map { action in
            CommandSpec(
                name: action.rawValue, abstract: onboardingAbstract(action),
                options: [
                    OptionSpec(
                        name: "pages", kind: .value(name: "n"),
                        help: "The number of pages (default: 3).")
                ],
                build: { parsed in
                    .onboarding(action, pageCount: try parsed.integer("pages", in: 1...Int.max))
                })
        },
        defaultSubcommand: "status")

    static func onboardingAbstract(_ action: OnboardingAction) -> String {
        switch action {
        case .status: "Print whether the walkthrough shows and its current page."
        case .next: "Go to the next page, or complete the walkthrough on the last page."
        case .skip: "Complete the walkthrough from any page."
        case .reset: "Show the walkthrough again from its first page."
        }
    }
}
