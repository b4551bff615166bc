/// Why a selection operation was refused.
public enum SelectionError: Error, Equatable, Sendable, CustomStringConvertible {
    /// No selection has this name.
    case notFound(name: String)
    /// The index is outside `0..<count`.
    case indexOutOfRange(name: String, index: Int, count: Int)
    /// Only optional selections can have no index.
    case cannotClear(name: String, policy: SelectionPolicy)
    /// A count below zero, or an empty name.
    case invalid(String)

    /// One line a user can act on.
    public var description: String {
        switch self {
        case .notFound(let name):
            "No selection named '\(name)'"
        case .indexOutOfRange(let name, let index, let count):
            count == 0
                ? "Index \(index) is out of range for '\(name)', which is empty"
                : "Index \(index) is out of range for '\(name)' (valid: 0...\(count - 1))"
        case .cannotClear(let name, let policy):
            "'\(name)' is a \(policy) selection and always has an index; only optional selections can be cleared"
        case .invalid(let reason):
            reason
        }
    }
}
