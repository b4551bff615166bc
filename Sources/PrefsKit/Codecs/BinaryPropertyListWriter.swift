#if canImport(FoundationEssentials) && !PREFS_FULL_FOUNDATION
    import FoundationEssentials
#else
    import Foundation
#endif

/// Writes `bplist00` binary property lists.
///
/// Layout: the magic, the objects, a table of object offsets, and a 32-byte trailer.
enum BinaryPropertyListWriter {
    private enum Object {
        case encoded([UInt8])
        case array([Int])
        case dictionary(keys: [Int], values: [Int])
    }

    static func encode(_ value: PreferenceValue) -> Data {
        var objects: [Object] = []
        _ = flatten(value, into: &objects)
        return encode(objects)
    }

    /// A property list whose top level is a dictionary of these entries, in this order (keys
    /// that Swift calls equal but whose bytes differ stay two entries).
    static func encode(entries: [(key: String, value: PreferenceValue)]) -> Data {
        var body: [UInt8] = []
        // An array's walk and an appending sink throw nothing.
        try? encode(
            entries: { visit in for (key, value) in entries { try visit(key, value) } },
            to: { body += $0 })
        return Data(body)
    }

    /// The same bytes as ``encode(entries:)``, handed to `sink` in pieces of about 64 KB,
    /// with memory that does not grow with the entries: `walk` is called six times and must
    /// give the same entries in the same order each time (one snapshot of a database).
    ///
    /// The layout is the one a whole encoding makes: the dictionary first, then every key,
    /// then every value (a nested array or dictionary followed by its own objects), then the
    /// table of offsets. Sizes of references and offsets depend on counts known only at the
    /// end, so the walks count, then write, then find the offsets again.
    static func encode(
        entries walk: PropertyListEntryWalk, to sink: ([UInt8]) throws -> Void
    ) throws {
        // The walks' closures use the sink; the walk does not keep them.
        try withoutActuallyEscaping(sink) { sink in
            var entryCount = 0
            var valueObjects = 0
            try walk { _, value in
                entryCount += 1
                valueObjects += objectCount(value)
            }
            let totalObjects = 1 + entryCount + valueObjects
            let referenceSize = byteCount(for: UInt64(totalObjects))
            var output = ChunkedOutput()
            output.append(Array("bplist00".utf8))
            // The dictionary: keys are objects 1...n, each value's objects follow the keys.
            appendMarker(0xD0, count: entryCount, to: &output.bytes)
            for reference in 0..<entryCount {
                appendBigEndian(UInt64(1 + reference), size: referenceSize, to: &output.bytes)
                try output.flushIfFull(into: sink)
            }
            var next = 1 + entryCount
            try walk { _, value in
                appendBigEndian(UInt64(next), size: referenceSize, to: &output.bytes)
                next += Self.objectCount(value)
                try output.flushIfFull(into: sink)
            }
            try walk { key, _ in
                output.append(encodeScalar(.string(key)))
                try output.flushIfFull(into: sink)
            }
            var base = 1 + entryCount
            try walk { _, value in
                var objects: [Object] = []
                _ = flatten(value, into: &objects)
                for object in objects {
                    append(object, shiftedBy: base, referenceSize: referenceSize, to: &output.bytes)
                }
                base += objects.count
                try output.flushIfFull(into: sink)
            }
            // The offsets, found again object by object, in the same order.
            let offsetTableOffset = output.position
            let offsetSize = byteCount(for: UInt64(offsetTableOffset))
            var offset = 8
            func appendOffset(advancingBy size: Int) {
                appendBigEndian(UInt64(offset), size: offsetSize, to: &output.bytes)
                offset += size
            }
            appendOffset(
                advancingBy: markerSize(count: entryCount) + 2 * entryCount * referenceSize)
            try walk { key, _ in
                appendOffset(advancingBy: encodeScalar(.string(key)).count)
                try output.flushIfFull(into: sink)
            }
            try walk { _, value in
                var objects: [Object] = []
                _ = flatten(value, into: &objects)
                for object in objects {
                    var bytes: [UInt8] = []
                    append(object, shiftedBy: 0, referenceSize: referenceSize, to: &bytes)
                    appendOffset(advancingBy: bytes.count)
                }
                try output.flushIfFull(into: sink)
            }
            output.bytes += [0, 0, 0, 0, 0, 0, UInt8(offsetSize), UInt8(referenceSize)]
            appendBigEndian(UInt64(totalObjects), size: 8, to: &output.bytes)
            appendBigEndian(0, size: 8, to: &output.bytes)
            appendBigEndian(UInt64(offsetTableOffset), size: 8, to: &output.bytes)
            try output.flush(into: sink)

        }
    }

    private static func encode(_ objects: [Object]) -> Data {
        let referenceSize = byteCount(for: UInt64(objects.count))
        var body: [UInt8] = Array("bplist00".utf8)
        var offsets: [Int] = []
        offsets.reserveCapacity(objects.count)
        for object in objects {
            offsets.append(body.count)
            append(object, shiftedBy: 0, referenceSize: referenceSize, to: &body)
        }
        let offsetTableOffset = body.count
        let offsetSize = byteCount(for: UInt64(offsetTableOffset))
        for offset in offsets {
            appendBigEndian(UInt64(offset), size: offsetSize, to: &body)
        }
        body += [0, 0, 0, 0, 0, 0, UInt8(offsetSize), UInt8(referenceSize)]
        appendBigEndian(UInt64(objects.count), size: 8, to: &body)
        appendBigEndian(0, size: 8, to: &body)
        appendBigEndian(UInt64(offsetTableOffset), size: 8, to: &body)
        return Data(body)
    }

    /// One object's bytes, its references moved by `shift` (objects flattened on their own
    /// number from 0).
    private static func append(
        _ object: Object, shiftedBy shift: Int, referenceSize: Int, to body: inout [UInt8]
    ) {
        switch object {
        case .encoded(let bytes):
            body += bytes
        case .array(let references):
            appendMarker(0xA0, count: references.count, to: &body)
            for reference in references {
                appendBigEndian(UInt64(reference + shift), size: referenceSize, to: &body)
            }
        case .dictionary(let keys, let values):
            appendMarker(0xD0, count: keys.count, to: &body)
            for reference in keys + values {
                appendBigEndian(UInt64(reference + shift), size: referenceSize, to: &body)
            }
        }
    }

    /// How many objects a value flattens into.
    private static func objectCount(_ value: PreferenceValue) -> Int {
        switch value {
        case .array(let elements): 1 + elements.reduce(0) { $0 + objectCount($1) }
        case .dictionary(let entries):
            1 + entries.count + entries.values.reduce(0) { $0 + objectCount($1) }
        default: 1
        }
    }

    /// The bytes of a marker for `count` elements.
    private static func markerSize(count: Int) -> Int {
        var bytes: [UInt8] = []
        appendMarker(0xD0, count: count, to: &bytes)
        return bytes.count
    }

    private static func flatten(_ value: PreferenceValue, into objects: inout [Object]) -> Int {
        let index = objects.count
        objects.append(.encoded([]))
        switch value {
        case .array(let elements):
            let references = elements.map { flatten($0, into: &objects) }
            objects[index] = .array(references)
        case .dictionary(let entries):
            let keys = entries.keys.sorted()
            let keyReferences = keys.map { flatten(.string($0), into: &objects) }
            let valueReferences = keys.map { key in
                flatten(entries[key] ?? .string(""), into: &objects)
            }
            objects[index] = .dictionary(keys: keyReferences, values: valueReferences)
        default:
            objects[index] = .encoded(encodeScalar(value))
        }
        return index
    }

    private static func encodeScalar(_ value: PreferenceValue) -> [UInt8] {
        var bytes: [UInt8] = []
        switch value {
        case .bool(let flag):
            bytes.append(flag ? 0x09 : 0x08)
        case .int(let integer):
            appendInteger(Int64(integer), to: &bytes)
        case .double(let real):
            bytes.append(0x23)
            appendBigEndian(real.bitPattern, size: 8, to: &bytes)
        case .float(let real):
            bytes.append(0x22)
            appendBigEndian(UInt64(real.bitPattern), size: 4, to: &bytes)
        case .date(let date):
            bytes.append(0x33)
            appendBigEndian(date.timeIntervalSinceReferenceDate.bitPattern, size: 8, to: &bytes)
        case .data(let data):
            appendMarker(0x40, count: data.count, to: &bytes)
            bytes += data
        case .string(let text), .json(let text):
            appendString(text, to: &bytes)
        case .url(let url):
            appendString(url.absoluteString, to: &bytes)
        case .array, .dictionary:
            break
        }
        return bytes
    }

    private static func appendString(_ text: String, to bytes: inout [UInt8]) {
        if text.utf8.allSatisfy({ $0 < 0x80 }) {
            appendMarker(0x50, count: text.utf8.count, to: &bytes)
            bytes += text.utf8
        } else {
            let units = Array(text.utf16)
            appendMarker(0x60, count: units.count, to: &bytes)
            for unit in units { appendBigEndian(UInt64(unit), size: 2, to: &bytes) }
        }
    }

    private static func appendInteger(_ value: Int64, to bytes: inout [UInt8]) {
        switch value {
        case 0...0xFF:
            bytes.append(0x10)
            appendBigEndian(UInt64(value), size: 1, to: &bytes)
        case 0x100...0xFFFF:
            bytes.append(0x11)
            appendBigEndian(UInt64(value), size: 2, to: &bytes)
        case 0x1_0000...0xFFFF_FFFF:
            bytes.append(0x12)
            appendBigEndian(UInt64(value), size: 4, to: &bytes)
        default:
            bytes.append(0x13)
            appendBigEndian(UInt64(bitPattern: value), size: 8, to: &bytes)
        }
    }

    private static func appendMarker(_ type: UInt8, count: Int, to bytes: inout [UInt8]) {
        if count < 15 {
            bytes.append(type | UInt8(count))
        } else {
            bytes.append(type | 0x0F)
            appendInteger(Int64(count), to: &bytes)
        }
    }

    private static func byteCount(for value: UInt64) -> Int {
        switch value {
        case 0...0xFF: 1
        case 0x100...0xFFFF: 2
        case 0x1_0000...0xFFFF_FFFF: 4
        default: 8
        }
    }

    private static func appendBigEndian(_ value: UInt64, size: Int, to bytes: inout [UInt8]) {
        for shift in stride(from: (size - 1) * 8, through: 0, by: -8) {
            bytes.append(UInt8(truncatingIfNeeded: value >> UInt64(shift)))
        }
    }
}
