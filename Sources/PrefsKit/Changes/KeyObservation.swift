import Observation

/// One key of one suite, as Swift's Observation sees it: a read of the key registers with it
/// (`withObservationTracking`, SwiftUI), and a committed change of the key, made by any
/// store or process, tells whoever registered.
///
/// Made on the key's first read through the suite and kept while the suite's cache lives,
/// so that a registration outlives cache resets.
final class KeyObservation: Observable, @unchecked Sendable {
    // Sendable: the registrar is thread-safe and nothing else is stored.
    private let registrar = ObservationRegistrar()

    /// Stands for the key's value in the registrar; it is named, never read.
    var value: Int { 0 }
    /// Kept by each instance: a static one costs a once-check on every read.
    private let valueKeyPath = \KeyObservation.value

    /// Registers a read with the observation tracking in progress on this thread, if any.
    @inline(__always)
    func access() {
        registrar.access(self, keyPath: valueKeyPath)
    }

    /// Tells whoever tracked a read of the key that it changed. Called with no lock held:
    /// their handlers may read the store at once.
    func didChange() {
        registrar.withMutation(of: self, keyPath: valueKeyPath) {}
    }
}
