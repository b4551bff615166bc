/// PrefsKit's namespace for typed keys: ``Key`` and the ``Keys`` that apps extend.
///
/// ```swift
/// extension Prefs.Keys {
///     static let hasViewedWalkthrough = Prefs.Key("hasViewedWalkthrough", default: false)
/// }
/// if !store[.hasViewedWalkthrough] { showWalkthrough() }
/// ```
public enum Prefs {
    /// The base of ``Key``, where apps declare their keys as static members so that
    /// `store[.hasViewedWalkthrough]` finds them.
    public class Keys: @unchecked Sendable {
        init() {}
    }
}
