import PrefsKit

/// A parsed command, ready to run.
enum Command: Equatable, Sendable {
    case help(path: [String])
    case version
    // Preferences
    case get(key: String)
    case set(key: String, value: String, type: PreferenceType?)
    case delete(key: String)
    case list(includeDeclared: Bool)
    case reset(force: Bool)
    case watch(keys: [String])
    case history(key: String?, limit: Int)
    case suites
    case declare(key: String, type: PreferenceType, defaultValue: String?, description: String?)
    case export(format: InterchangeFormat, file: String?)
    case importPreferences(format: InterchangeFormat?, file: String, replace: Bool, force: Bool)
}

/// File formats of `export` and `import`.
enum InterchangeFormat: String, CaseIterable, Sendable {
    case json
    /// An XML property list.
    case plist
    /// A binary property list.
    case binaryPlist = "binary-plist"
}
