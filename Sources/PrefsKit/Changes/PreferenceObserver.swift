/// Someone waiting for changes of a suite, or of one key of it.
struct PreferenceObserver {
    let suite: String
    let key: String?
    let deliver: @Sendable (PreferenceChange) -> Void

    func matches(_ change: PreferenceChange) -> Bool {
        ExactName.sameBytes(change.suite, suite)
            && (key.map { ExactName.sameBytes(change.key, $0) } ?? true)
    }
}
