import PrefsKit

/// Shells `prefs completion` writes scripts for.
enum Shell: String, CaseIterable, Sendable {
    case bash, zsh, fish
}
