#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A name (a key, a suite, an item id, a tag) as the databases see it: its UTF-8 bytes.
///
/// Swift's `String ==` is canonical equivalence, so `"é"` (U+00E9) equals `"e\u{301}"`, and
/// `"\u{212B}"` (ANGSTROM SIGN) equals `"\u{C5}"`; SQLite and PostgreSQL compare bytes, and
/// keep both as two names. Every dictionary or set of names on the data path is keyed by
/// this type, so that two names the store keeps apart are never merged in memory.
package struct ExactName: Hashable, Comparable, Sendable, CustomStringConvertible {
    package let string: String

    package init(_ string: String) {
        self.string = string
    }

    package var description: String { string }

    package static func == (lhs: ExactName, rhs: ExactName) -> Bool {
        sameBytes(lhs.string, rhs.string)
    }

    package func hash(into hasher: inout Hasher) {
        var copy = string
        copy.withUTF8 { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
    }

    /// Byte order, as SQLite's BINARY collation and PostgreSQL's "C" collation sort.
    package static func < (lhs: ExactName, rhs: ExactName) -> Bool {
        precedes(lhs.string, rhs.string)
    }

    /// Whether two strings have the same UTF-8 bytes.
    @inline(__always)
    package static func sameBytes(_ lhs: String, _ rhs: String) -> Bool {
        var (left, right) = (lhs, rhs)
        return left.withUTF8 { a in
            right.withUTF8 { b in
                guard a.count == b.count else { return false }
                guard let first = a.baseAddress, let second = b.baseAddress else { return true }
                return first == second || memcmp(first, second, a.count) == 0
            }
        }
    }

    /// Whether two optional strings are both nil, or have the same UTF-8 bytes.
    package static func sameBytes(_ lhs: String?, _ rhs: String?) -> Bool {
        switch (lhs, rhs) {
        case (nil, nil): true
        case (let left?, let right?): sameBytes(left, right)
        default: false
        }
    }

    /// Whether two lists of strings hold the same bytes in the same order.
    package static func sameBytes(_ lhs: [String], _ rhs: [String]) -> Bool {
        lhs.count == rhs.count && zip(lhs, rhs).allSatisfy { sameBytes($0, $1) }
    }

    /// Whether `lhs` sorts before `rhs` by bytes.
    package static func precedes(_ lhs: String, _ rhs: String) -> Bool {
        lhs.utf8.lexicographicallyPrecedes(rhs.utf8)
    }
}
