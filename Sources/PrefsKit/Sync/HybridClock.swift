#if canImport(FoundationEssentials) && !PREFS_FULL_FOUNDATION
    import FoundationEssentials
#else
    import Foundation
#endif

/// A reading of a hybrid logical clock: wall-clock milliseconds since 1970, a counter
/// within the millisecond, and the device that read it. Its text,
/// `000001764600000000-000003-device`, orders as the clock does: by time, then counter, then
/// device, so two devices never tie.
///
/// A device's clock never goes back: each reading is past the previous one and past every
/// clock seen in a change pulled from the hub, so a device whose wall clock is behind
/// still writes after what it has seen, and one whose clock is ahead wins only until the
/// others have seen its changes.
package struct HybridClock: Sendable, Hashable, Comparable {
    package var milliseconds: Int64
    package var counter: Int64
    package var device: String

    package init(milliseconds: Int64, counter: Int64, device: String) {
        self.milliseconds = milliseconds
        self.counter = counter
        self.device = device
    }

    /// Reads the text of a reading; nil when it is not one.
    package init?(_ text: String) {
        let parts = text.split(separator: "-", maxSplits: 2, omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0].count == 15, parts[1].count == 6,
            let milliseconds = Int64(parts[0]), let counter = Int64(parts[1]), !parts[2].isEmpty
        else { return nil }
        self.init(milliseconds: milliseconds, counter: counter, device: String(parts[2]))
    }

    /// The text, as the device's triggers write it (`printf('%015d-%06d-%s')`).
    package var text: String {
        Self.padded(milliseconds, to: 15) + "-" + Self.padded(counter, to: 6) + "-" + device
    }

    private static func padded(_ number: Int64, to width: Int) -> String {
        let digits = String(number)
        return String(repeating: "0", count: max(0, width - digits.count)) + digits
    }

    package static func < (left: HybridClock, right: HybridClock) -> Bool {
        (left.milliseconds, left.counter, left.device)
            < (right.milliseconds, right.counter, right.device)
    }
}
