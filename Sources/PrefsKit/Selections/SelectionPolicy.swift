/// How a selection behaves at the ends of its list and when the list shrinks.
public enum SelectionPolicy: String, Sendable, CaseIterable, Codable {
    /// Stays at the ends (the trip carousel); shrinking moves the index to the new end.
    case clamp
    /// Goes round from last to first and first to last (the featured pager); shrinking
    /// takes the index modulo the new count.
    case wrap
    /// May be nil (the article list: no article open); an index past a shrunk list becomes
    /// nil.
    case optional
}
