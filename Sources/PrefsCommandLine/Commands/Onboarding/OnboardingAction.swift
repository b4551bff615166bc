import PrefsKit

/// What `prefs onboarding` does.
enum OnboardingAction: String, CaseIterable, Sendable {
    case status, next, skip, reset
}
