#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A moment on the monotonic clock, for SQLite's progress handler.
final class Deadline {
    private let end: UInt64

    init(seconds: Double) {
        end = Self.now() + UInt64(max(0, seconds) * 1_000_000_000)
    }

    var hasPassed: Bool { Self.now() > end }

    private static func now() -> UInt64 {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
    }
}
