#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// What a write that cannot throw does when it fails: the setter of `@Preference`,
/// `@SelectedIndex` and `@Bookmarked`, the typed subscript's setter, `set(_:forKey:)`.
///
/// The property then keeps reading what the file holds, so the failure must not pass
/// unnoticed. By default it is loud:
/// - always: one line on standard error, `prefs: a write could not be stored: ...`;
/// - in debug builds, when a debugger is attached: execution stops at the fault (`SIGTRAP`),
///   as a breakpoint would, and continuing goes on as a release build does;
/// - with `PREFS_STOP_ON_FAILED_WRITE=1` in the environment: it stops there even without a
///   debugger (the process ends with `SIGTRAP` when nothing catches it), in any build.
///
/// Release builds never stop: they write the line and go on. Give a store or a wrapper an
/// error handler of your own to show the failure in the app.
public enum FailedWrite {
    /// Reports a failed write the default way (see ``FailedWrite``).
    @Sendable public static func report(_ error: any Error) {
        standardErrorWrite("prefs: a write could not be stored: \(error)\n")
        if shouldStop(
            isDebugBuild: isDebugBuild, debuggerAttached: debuggerIsAttached(),
            environment: getenv("PREFS_STOP_ON_FAILED_WRITE").map { String(cString: $0) })
        {
            stopHere()
        }
    }

    /// Raises SIGTRAP; one that was ignored or blocked (a parent's choice, inherited across
    /// exec) is set back first, or the stop would be a no-op. A handler of the app's stays.
    private static func stopHere() {
        let previous = signal(SIGTRAP, SIG_DFL)
        // SIG_IGN is handler 1 on Linux and Darwin (a C cast that Swift does not import).
        if unsafeBitCast(previous, to: Int.self) != 1 {
            _ = signal(SIGTRAP, previous)
        }
        // Nor may it stay pending in a blocked mask (also inherited across exec).
        var trap = sigset_t()
        sigemptyset(&trap)
        sigaddset(&trap, SIGTRAP)
        pthread_sigmask(SIG_UNBLOCK, &trap, nil)
        raise(SIGTRAP)
    }

    /// Whether a failed write stops at the fault.
    static func shouldStop(isDebugBuild: Bool, debuggerAttached: Bool, environment: String?)
        -> Bool
    {
        if environment == "1" { return true }
        return isDebugBuild && debuggerAttached
    }

    static var isDebugBuild: Bool {
        #if DEBUG
            true
        #else
            false
        #endif
    }

    /// Whether a debugger (or any tracer) is attached to this process.
    static func debuggerIsAttached() -> Bool {
        #if os(Linux)
            guard let file = fopen("/proc/self/status", "r") else { return false }
            defer { fclose(file) }
            var line = [CChar](repeating: 0, count: 256)
            while fgets(&line, Int32(line.count), file) != nil {
                let text = String(
                    decoding: line.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
                if text.hasPrefix("TracerPid:") {
                    let pid = text.dropFirst("TracerPid:".count).drop { $0 == " " || $0 == "\t" }
                    return !pid.hasPrefix("0")
                }
            }
            return false
        #elseif canImport(Darwin)
            var info = kinfo_proc()
            var size = MemoryLayout<kinfo_proc>.stride
            var name: [Int32] = [CTL_KERN, KERN_PROC, KERN_PROC_PID, getpid()]
            guard sysctl(&name, 4, &info, &size, nil, 0) == 0 else { return false }
            return info.kp_proc.p_flag & P_TRACED != 0
        #else
            return false
        #endif
    }
}
