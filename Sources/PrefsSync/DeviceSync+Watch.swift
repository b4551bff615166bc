import PrefsKit

#if canImport(FoundationEssentials) && !PREFS_FULL_FOUNDATION
    import FoundationEssentials
#else
    import Foundation
#endif

extension DeviceSync {
    /// Rounds until the task is cancelled, or until the hub says "no": one soon after each
    /// local write (looked for every `interval`), one whenever the hub says another device
    /// pushed, and one every `idleRounds` intervals in any case. A failed round is reported
    /// and tried again after a wait that doubles with each failure in a row (from
    /// `interval`, with jitter, up to `maximumBackoff`), so a hub that is down or busy is not
    /// hammered. A refusal that retrying cannot change (a revoked device token, a login the
    /// hub refuses: ``isRefusal(_:)``) is reported, and the watch ends.
    ///
    /// - Parameters:
    ///   - interval: How often to look for local writes and the hub's notifications.
    ///   - idleRounds: Intervals after which a round runs even with nothing seen.
    ///   - maximumBackoff: The longest wait after failed rounds.
    ///   - onRound: Told of every round, and of every failure.
    public func watch(
        interval: Duration = .milliseconds(50), idleRounds: Int = 100,
        maximumBackoff: Duration = .seconds(60),
        onRound: @Sendable (Result<SyncReport, any Error>) -> Void = { _ in }
    ) async {
        var hubToken = hubHandle.changeToken()
        var idle = idleRounds
        var failures = 0
        var generator = SystemRandomNumberGenerator()
        while !Task.isCancelled {
            let token = hubHandle.changeToken()
            let isPending = ((try? pendingCount()) ?? 0) > 0
            idle -= 1
            if isPending || token != hubToken || idle <= 0 {
                idle = idleRounds
                hubToken = token
                let outcome = Result { try sync() }
                onRound(outcome)
                if case .failure(let error) = outcome {
                    if Self.isRefusal(error) { return }
                    failures += 1
                    try? await Task.sleep(
                        for: Self.backoff(
                            after: failures, interval: interval, maximum: maximumBackoff,
                            using: &generator))
                    continue
                }
                failures = 0
            }
            try? await Task.sleep(for: interval)
        }
    }

    /// Whether a round's error is the hub's "no" for this device, which retrying cannot
    /// change: a device token the server does not know or revoked, a login or role the hub
    /// refuses (exit 77).
    public static func isRefusal(_ error: any Error) -> Bool {
        if case .permissionDenied? = (error as? DatabaseError)?.kind { return true }
        return false
    }

    /// The wait after `failures` failed rounds in a row: `interval` doubled for each, at most
    /// `maximum`, the upper half of it drawn at random so that devices a server turned away
    /// together do not come back together.
    static func backoff(
        after failures: Int, interval: Duration, maximum: Duration,
        using generator: inout some RandomNumberGenerator
    ) -> Duration {
        let doubled = interval * (1 << min(max(failures, 1), 20))
        let cap = min(doubled, maximum)
        return cap * Double.random(in: 0.5...1, using: &generator)
    }
}
