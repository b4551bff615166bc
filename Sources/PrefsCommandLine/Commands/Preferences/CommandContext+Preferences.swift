import PrefsKit

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

extension CommandContext {
    /// One line of list output: `key=value\n`, or with -z `key\nvalue\0`.
    func entry(key: String, value: PreferenceValue, isDefault: Bool = false, isNullSeparated: Bool)
        -> String
    {
        if isNullSeparated { return "\(key)\n\(ValueText.plain(value))\0" }
        return "\(ValueText.listed(key))=\(ValueText.listed(value))"
            + (isDefault ? " (default)\n" : "\n")
    }

    /// Exit 1: the key has no stored value.
    func noValue(_ key: String) -> CommandFailure {
        CommandFailure(
            "No value for '\(ValueText.shown(key))' in suite '\(suite)'",
            exitCode: CommandFailure.notFound)
    }

    // MARK: - Watching

    /// For the commands that run until interrupted: SIGINT and SIGTERM end the process with
    /// 0, a closed pipe does not kill it.
    static func exitOnStopSignals() {
        signal(SIGPIPE, SIG_IGN)
        signal(SIGINT) { _ in _exit(0) }
        signal(SIGTERM) { _ in _exit(0) }
        // A parent may have started us with these blocked; watching must still end on them.
        var stopSignals = sigset_t()
        sigemptyset(&stopSignals)
        sigaddset(&stopSignals, SIGINT)
        sigaddset(&stopSignals, SIGTERM)
        pthread_sigmask(SIG_UNBLOCK, &stopSignals, nil)
    }
}
