internal import CSQLite

#if canImport(FoundationEssentials) && !PREFS_FULL_FOUNDATION
    import FoundationEssentials
#else
    import Foundation
#endif

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Memory for the text bound to one statement: copies are appended to one block, which never
/// moves while bindings may point into it. A copy that does not fit goes to a block of its
/// own until the next ``reuse()``, which also grows the main block to what was needed, so a
/// statement run again and again with similar values allocates nothing.
struct TextArena {
    private var block: UnsafeMutablePointer<CChar>?
    private var capacity = 0
    private var used = 0
    private var needed = 0
    private var overflow: [UnsafeMutablePointer<CChar>] = []

    /// A NUL-terminated copy of the bytes, valid until ``reuse()`` or ``release()``.
    @inline(__always)
    mutating func store(_ bytes: UnsafeBufferPointer<UInt8>) -> UnsafePointer<CChar> {
        let size = bytes.count + 1
        needed += size
        let target: UnsafeMutablePointer<CChar>
        if let block, used + size <= capacity {
            target = block + used
            used += size
        } else {
            let allocated = UnsafeMutablePointer<CChar>.allocate(capacity: size)
            overflow.append(allocated)
            target = allocated
        }
        if let base = bytes.baseAddress {
            UnsafeMutableRawPointer(target).copyMemory(from: base, byteCount: bytes.count)
        }
        target[bytes.count] = 0
        return UnsafePointer(target)
    }

    /// Whether ``reuse()`` will free memory that text was stored in.
    var reuseWouldMove: Bool { !overflow.isEmpty }

    /// Makes all the memory available again; call only when no binding points into it.
    @inline(__always)
    mutating func reuse() {
        if !overflow.isEmpty {
            for pointer in overflow { pointer.deallocate() }
            overflow.removeAll(keepingCapacity: true)
            if needed > capacity {
                block?.deallocate()
                capacity = max(256, needed.nextPowerOfTwo)
                block = .allocate(capacity: capacity)
            }
        }
        used = 0
        needed = 0
    }

    /// Frees everything.
    mutating func release() {
        for pointer in overflow { pointer.deallocate() }
        overflow.removeAll()
        block?.deallocate()
        block = nil
        capacity = 0
        used = 0
        needed = 0
    }
}

extension Int {
    fileprivate var nextPowerOfTwo: Int {
        self <= 1 ? 1 : 1 << (Int.bitWidth - (self - 1).leadingZeroBitCount)
    }
}
