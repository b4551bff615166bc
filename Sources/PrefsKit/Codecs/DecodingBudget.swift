#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// What decoding one document from outside may cost: nesting depth, values made, bytes of
/// text and data made, and CPU time: the decoding thread's, not the wall clock's, so that a
/// busy machine (other processes, a paused process) never turns a good file into a refused
/// one. A document that shares objects (binary property lists do)
/// is charged for what it would expand to, not for what it stores, so that a few hundred
/// bytes cannot grow into gigabytes. Exceeding any limit ends the decoding with an error
/// naming the limit; nothing is written.
package struct DecodingBudget {
    /// The deepest nesting of arrays, dictionaries, objects or folders.
    package static let maximumDepth = 512
    /// The most values (scalars and containers, shared ones counted each time) per document.
    package static let maximumValues = 5_000_000
    /// The most bytes of strings and data per document, shared ones counted each time.
    package static let maximumBytes = 512 << 20
    /// The most CPU time of the decoding thread a document may take, in seconds.
    package static let maximumSeconds = 30

    private(set) var values = 0
    private(set) var bytes = 0
    private let seconds: Int
    private let valueLimit: Int
    private let byteLimit: Int
    private var deadline: UInt64
    private var untilClockCheck = 4096

    /// A budget whose time runs out after `seconds` (``maximumSeconds`` but in tests), and
    /// whose values and bytes may be raised above ``maximumValues`` and ``maximumBytes``
    /// (for a document read in pieces, whose memory does not grow with them).
    package init(
        seconds: Int = maximumSeconds, values: Int = maximumValues, bytes: Int = maximumBytes
    ) {
        self.seconds = seconds
        valueLimit = max(values, Self.maximumValues)
        byteLimit = max(bytes, Self.maximumBytes)
        deadline = Self.now() + UInt64(seconds) * 1_000_000_000
    }

    /// Starts the time limit again, the values and bytes spent kept: for a document read
    /// one entry at a time, whose reader spends time between entries (storing them) that is
    /// not decoding. The values and bytes still bound the decoding as a whole.
    package mutating func restartClock() {
        deadline = Self.now() + UInt64(seconds) * 1_000_000_000
    }

    /// Why decoding stopped: the limit that was reached, in words.
    package struct Exceeded: Error, Equatable {
        package let reason: String
    }

    /// Charges `values` values and `bytes` bytes.
    ///
    /// - Throws: ``Exceeded`` naming the limit reached.
    package mutating func spend(values: Int = 1, bytes: Int = 0) throws(Exceeded) {
        let (newValues, valuesOverflow) = self.values.addingReportingOverflow(values)
        guard !valuesOverflow, newValues <= valueLimit else {
            throw Exceeded(reason: "more than \(valueLimit) values (the decoding limit)")
        }
        let (newBytes, bytesOverflow) = self.bytes.addingReportingOverflow(bytes)
        guard !bytesOverflow, newBytes <= byteLimit else {
            throw Exceeded(
                reason: "more than \(byteLimit >> 20) MiB of text and data (the decoding limit)")
        }
        self.values = newValues
        self.bytes = newBytes
        untilClockCheck -= values
        if untilClockCheck <= 0 {
            untilClockCheck = 4096
            try checkTime()
        }
    }

    /// Checks the time limit alone.
    ///
    /// - Throws: ``Exceeded`` when the document has taken too long.
    package func checkTime() throws(Exceeded) {
        if Self.now() > deadline {
            throw Exceeded(reason: "decoding took more than \(seconds) s of CPU (the limit)")
        }
    }

    /// The CPU time of the calling thread, in nanoseconds: a document is decoded on one
    /// thread, from its first byte to its last (its readers never suspend).
    private static func now() -> UInt64 {
        var time = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
        return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
    }
}
