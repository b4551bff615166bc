import Observation
import Synchronization

/// How many times the `onChange` of one `withObservationTracking` fired (at most once).
public final class ObservationFirings: Sendable {
    private let count = Atomic<Int>(0)

    public init() {}

    public var value: Int { count.load(ordering: .acquiring) }

    func fire() { count.add(1, ordering: .releasing) }
}

/// Tracks the reads `apply` makes with Swift's Observation and counts the firings.
public func trackObservation(_ apply: () -> Void) -> ObservationFirings {
    let firings = ObservationFirings()
    withObservationTracking(apply) { firings.fire() }
    return firings
}
