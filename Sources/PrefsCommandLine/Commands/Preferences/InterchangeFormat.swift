import PrefsKit

/// File formats of `export` and `import`.
enum InterchangeFormat: String, CaseIterable, Sendable {
    case json
    /// An XML property list.
    case plist
    /// A binary property list.
    case binaryPlist = "binary-plist"
}
