/// A positional argument.
struct ArgumentSpec: Sendable {
    /// The name shown as `<name>`.
    var name: String
    var help: String
    var isOptional = false
    /// Takes every remaining positional value.
    var isRepeating = false
    /// Values offered by shell completion.
    var completions: [String] = []
    /// Shell completion offers the key names of the database (`prefs list --names --all`).
    var completesKeys = false

    var usage: String {
        let base = "<\(name)>" + (isRepeating ? " ..." : "")
        return isOptional ? "[\(base)]" : base
    }
}
