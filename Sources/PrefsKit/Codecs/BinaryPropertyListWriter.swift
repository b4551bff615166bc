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
        var objects: [Object] = [.encoded([])]
        let keyReferences = entries.map { flatten(.string($0.key), into: &objects) }
        let valueReferences = entries.map { flatten($0.value, into: &objects) }
        objects[0] = .dictionary(keys: keyReferences, values: valueReferences)
        return encode(objects)
    }

    private static func encode(_ objects: [Object]) -> Data {
        let referenceSize = byteCount(for: UInt64(objects.count))
        var body: [UInt8] = Array("bplist00".utf8)
        var offsets: [Int] = []
        offsets.reserveCapacity(objects.count)
        for object in objects {
            offsets.append(body.count)
            switch object {
            case .encoded(let bytes):
                body += bytes
            case .array(let references):
                appendMarker(0xA0, count: references.count, to: &body)
                for reference in references {
                    appendBigEndian(UInt64(reference), size: referenceSize, to: &body)
                }
            case .dictionary(let keys, let values):
                appendMarker(0xD0, count: keys.count, to: &body)
                for reference in keys + values {
                    appendBigEndian(UInt64(reference), size: referenceSize, to: &body)
                }
            }
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
