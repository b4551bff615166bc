#if canImport(FoundationEssentials) && !PREFS_FULL_FOUNDATION
    import FoundationEssentials
#else
    import Foundation
#endif

/// Reads `bplist00` binary property lists, checking every offset and count against the
/// data so that a damaged or hostile file is an error, never a crash or a loop.
///
/// Objects may be shared: an array may hold the same object many times, and that object
/// may be an array that does the same. Each object is decoded once, and every reference to
/// it is charged to the ``DecodingBudget`` with what it expands to, so that a file of a few
/// hundred bytes cannot describe gigabytes.
struct BinaryPropertyListReader<Bytes: PropertyListBytes> {

    private let bytes: Bytes
    private let offsetSize: Int
    private let referenceSize: Int
    private let objectCount: Int
    private let offsetTableOffset: Int
    private var visiting: Set<Int> = []
    /// Each object decoded so far, with what it expands to (values and bytes).
    private var decoded: [Int: (value: PreferenceValue, values: Int, bytes: Int)] = [:]
    /// The bytes of the strings and data in ``decoded``, each counted once.
    private var decodedBytes = 0
    private var budget = DecodingBudget()
    /// The top object, when its entries are wanted whole (``decodeEntries(_:)``).
    private var topIndex: Int?
    private var topLevelEntries: [(key: String, value: PreferenceValue)]?
    /// Bit n: object n was walked as a node or children array (``walkTree``).
    private var expanded: [UInt64] = []

    static func decode(_ bytes: Bytes) throws(InterchangeError) -> PreferenceValue {
        var reader = try BinaryPropertyListReader(bytes: bytes)
        let top = try reader.readTrailerInteger(at: bytes.count - 16)
        guard top < UInt64(reader.objectCount) else {
            throw InterchangeError(reason: "binary plist: top object \(top) out of range")
        }
        return try reader.charged(Int(top), depth: 0).value
    }

    /// The entries of a property list whose top object is a dictionary, in the file's order,
    /// with keys whose bytes differ kept apart even where Swift's `String ==` calls them
    /// equal; nil when the top object is not a dictionary.
    static func decodeEntries(_ bytes: Bytes) throws(InterchangeError) -> [(
        key: String, value: PreferenceValue
    )]? {
        var reader = try BinaryPropertyListReader(bytes: bytes)
        let top = try reader.readTrailerInteger(at: bytes.count - 16)
        guard top < UInt64(reader.objectCount) else {
            throw InterchangeError(reason: "binary plist: top object \(top) out of range")
        }
        reader.topIndex = Int(top)
        _ = try reader.charged(Int(top), depth: 0)
        return reader.topLevelEntries
    }

    /// Walks the entries of a property list whose top object is a dictionary, in the file's
    /// order, decoding one entry at a time (its shared objects are decoded again for the next
    /// one, and charged again, as every reference is): memory holds one entry, whatever the
    /// file's size. False when the top object is not a dictionary, when an entry does not
    /// decode (read whole, the problem is named), or when `entry` returns false.
    ///
    /// The document's values and bytes are charged to one `budget`, as when it is read
    /// whole; its time limit counts each entry's decoding alone, not the time `entry`
    /// takes (an import stores each entry there).
    static func walkEntries(
        _ bytes: Bytes, budget: DecodingBudget = DecodingBudget(),
        _ entry: (String, PreferenceValue) throws -> Bool
    ) throws -> Bool {
        guard var reader = try? BinaryPropertyListReader(bytes: bytes) else { return false }
        reader.budget = budget
        guard let (length, listStart) = try? reader.topDictionary() else { return false }
        for index in 0..<length {
            reader.decoded.removeAll(keepingCapacity: true)
            reader.budget.restartClock()
            guard let (key, value) = try? reader.topEntry(index, of: length, at: listStart),
                try entry(key, value)
            else { return false }
        }
        return true
    }

    /// Walks a tree of dictionaries whose children are in an array under `childrenKey`
    /// (Safari's bookmarks), without holding it: each node's other entries are decoded whole
    /// and handed to `visit` with the node's level (1 for the top's children; nil entries
    /// for a node that is not a dictionary), in the order a depth-first reading of the
    /// decoded tree meets them, and then its children. `top` is handed the top dictionary's
    /// other entries first. Every object is decoded and checked as ``decode(_:)`` checks it
    /// (cycles, references, keys, depth), so that the walk takes exactly the files that the
    /// whole reading takes, but for its budget: the walk may decode four times what the file
    /// holds (at least the whole reading's budget), since its memory does not grow with it.
    ///
    /// False when the file is not what the whole reading takes, when a node or a children
    /// array is reached twice (a file that shares them is read whole, with its budget), or
    /// when `top` returns false; `top`'s and `visit`'s errors are thrown.
    static func walkTree(
        _ bytes: Bytes, childrenKey: String, top: ([String: PreferenceValue]) throws -> Bool,
        visit: (_ entries: [String: PreferenceValue]?, _ level: Int) throws -> Void
    ) throws -> Bool {
        guard var reader = try? BinaryPropertyListReader(bytes: bytes) else { return false }
        reader.budget = DecodingBudget(
            values: reader.objectCount.multipliedReportingOverflow(by: 4).partialValue,
            bytes: bytes.count.multipliedReportingOverflow(by: 4).partialValue)
        reader.expanded = [UInt64](repeating: 0, count: reader.objectCount / 64 + 1)
        // A children array being walked: where its references are, how many, the next one,
        // the depth of its elements, and the objects to let go of at its end.
        var frames: [(start: Int, count: Int, next: Int, depth: Int, owners: [Int])] = []
        do {
            let root = Int(try reader.readTrailerInteger(at: bytes.count - 16))
            let (entries, children) = try reader.node(root, depth: 0, childrenKey: childrenKey)
            guard let entries, try top(entries) else { return false }
            if let children {
                frames.append((children.start, children.count, 0, 2, children.owners))
            }
            while let frame = frames.last {
                guard frame.next < frame.count else {
                    frames.removeLast()
                    for owner in frame.owners { reader.visiting.remove(owner) }
                    continue
                }
                frames[frames.count - 1].next += 1
                let reference = try reader.references(
                    1, at: frame.start + frame.next * reader.referenceSize)[0]
                // What was decoded stays for the next nodes (keys and types are shared
                // objects), charged on every reference as before, up to a bound.
                if reader.decoded.count > 4_096 || reader.decodedBytes > 4 << 20 {
                    reader.decoded.removeAll(keepingCapacity: true)
                    reader.decodedBytes = 0
                }
                reader.budget.restartClock()
                let (entries, children) = try reader.node(
                    reference, depth: frame.depth, childrenKey: childrenKey)
                try visit(entries, frames.count)
                if let children {
                    frames.append(
                        (children.start, children.count, 0, frame.depth + 2, children.owners))
                }
            }
        } catch is InterchangeError {
            return false
        }
        return true
    }

    /// A node of ``walkTree(_:childrenKey:top:visit:)``: a dictionary's entries but its
    /// children array, which is left to be walked (its references' place and count, and the
    /// node and the array, marked as being visited until the walk is past them); anything
    /// else decoded whole (nil entries).
    private mutating func node(_ index: Int, depth: Int, childrenKey: String)
        throws(InterchangeError) -> (
            entries: [String: PreferenceValue]?, children: (start: Int, count: Int, owners: [Int])?
        )
    {
        guard index >= 0, index < objectCount else {
            throw error("reference \(index) out of range", at: 0)
        }
        let start = try offset(ofObject: index)
        guard try read(1, at: start).first.map({ $0 >> 4 }) == 0xD else {
            _ = try charged(index, depth: depth)
            return (nil, nil)
        }
        guard depth < DecodingBudget.maximumDepth else { throw error("nesting too deep", at: 0) }
        try expand(index)
        let marker = try read(1, at: start).first ?? 0
        let (length, listStart) = try count(marker: marker, at: start)
        let references = try self.references(length * 2, at: listStart)
        var entries: [String: PreferenceValue] = [:]
        var names: Set<ExactName> = []
        var children: (start: Int, count: Int, owners: [Int])?
        do {
            try budget.spend(values: 1, bytes: 0)
        } catch {
            throw InterchangeError(reason: "binary plist: \(error.reason)")
        }
        for (keyReference, valueReference) in zip(
            references.prefix(length), references.suffix(length))
        {
            guard case .string(let name) = try charged(keyReference, depth: depth + 1).value else {
                throw error("dictionary key is not a string", at: start)
            }
            guard names.insert(ExactName(name)).inserted else {
                throw error("dictionary key '\(name)' appears twice", at: start)
            }
            let valueStart = try offset(ofObject: valueReference)
            if name == childrenKey, try read(1, at: valueStart).first.map({ $0 >> 4 }) == 0xA {
                guard depth + 1 < DecodingBudget.maximumDepth else {
                    throw error("nesting too deep", at: 0)
                }
                try expand(valueReference)
                let (count, start) = try self.count(
                    marker: try read(1, at: valueStart).first ?? 0, at: valueStart)
                // The references are read one at a time; checked here as the whole reading
                // checks them all.
                guard count <= objectCount * 2 else {
                    throw error("too many references", at: start)
                }
                _ = try read(count * referenceSize, at: start)
                do {
                    try budget.spend(values: 1, bytes: 0)
                } catch {
                    throw InterchangeError(reason: "binary plist: \(error.reason)")
                }
                children = (start, count, [index, valueReference])
                // Stands in for the array, so that a second spelling of the key is refused.
                if entries.updateValue(.array([]), forKey: name) != nil {
                    throw error(
                        "a nested dictionary holds the key '\(name)' in two Unicode spellings",
                        at: start)
                }
                continue
            }
            let value = try charged(valueReference, depth: depth + 1)
            if entries.updateValue(value.value, forKey: name) != nil {
                throw error(
                    "a nested dictionary holds the key '\(name)' in two Unicode spellings",
                    at: start)
            }
        }
        if children == nil {
            visiting.remove(index)
        } else {
            entries.removeValue(forKey: childrenKey)
        }
        return (entries, children)
    }

    /// Marks a node or children array as walked and being visited: one reached twice, or
    /// inside itself, ends the walk (the whole reading charges what sharing expands to).
    private mutating func expand(_ index: Int) throws(InterchangeError) {
        let (word, bit) = (index / 64, UInt64(1) << UInt64(index % 64))
        guard expanded[word] & bit == 0, visiting.insert(index).inserted else {
            throw error("object \(index) is reached twice", at: 0)
        }
        expanded[word] |= bit
    }

    /// The top dictionary's entry count and where its references start; it is marked as
    /// being visited, so that an entry that holds it is refused as a cycle.
    private mutating func topDictionary() throws(InterchangeError) -> (count: Int, start: Int) {
        let top = try readTrailerInteger(at: bytes.count - 16)
        guard top < UInt64(objectCount) else {
            throw InterchangeError(reason: "binary plist: top object \(top) out of range")
        }
        let start = try offset(ofObject: Int(top))
        let marker = try read(1, at: start).first ?? 0
        guard marker >> 4 == 0xD else { throw error("the top object is not a dictionary", at: 0) }
        let (length, listStart) = try count(marker: marker, at: start)
        guard length <= objectCount, listStart <= offsetTableOffset - length * 2 * referenceSize
        else { throw error("object runs past the end", at: start) }
        visiting = [Int(top)]
        do {
            try budget.spend(values: 1, bytes: 0)
        } catch {
            throw InterchangeError(reason: "binary plist: \(error.reason)")
        }
        return (length, listStart)
    }

    /// The top dictionary's entry at `index`.
    private mutating func topEntry(_ index: Int, of count: Int, at listStart: Int)
        throws(InterchangeError) -> (String, PreferenceValue)
    {
        let keyReference = try references(1, at: listStart + index * referenceSize)[0]
        let valueReference = try references(1, at: listStart + (count + index) * referenceSize)[0]
        guard case .string(let key) = try charged(keyReference, depth: 1).value else {
            throw error("dictionary key is not a string", at: listStart)
        }
        return (key, try charged(valueReference, depth: 1).value)
    }

    private init(bytes: Bytes) throws(InterchangeError) {
        guard bytes.count >= 8 + 32,
            try bytes.slice(at: 0, count: 7).elementsEqual("bplist0".utf8)
        else {
            throw InterchangeError(reason: "binary plist: too short or missing the bplist header")
        }
        self.bytes = bytes
        let trailer = bytes.count - 32
        let fields = Array(try bytes.slice(at: trailer, count: 32))
        offsetSize = Int(fields[6])
        referenceSize = Int(fields[7])
        guard (1...8).contains(offsetSize), (1...8).contains(referenceSize) else {
            throw InterchangeError(reason: "binary plist: invalid sizes in the trailer")
        }
        let count = Self.bigEndian(fields[8..<16])
        let tableOffset = Self.bigEndian(fields[24..<32])
        guard count > 0, count < UInt64(bytes.count), tableOffset >= 8,
            tableOffset < UInt64(trailer),
            count * UInt64(offsetSize) <= UInt64(trailer) - tableOffset
        else {
            throw InterchangeError(reason: "binary plist: offset table out of range")
        }
        objectCount = Int(count)
        offsetTableOffset = Int(tableOffset)
    }

    private func readTrailerInteger(at offset: Int) throws(InterchangeError) -> UInt64 {
        Self.bigEndian(try bytes.slice(at: offset, count: 8))
    }

    private static func bigEndian(_ slice: ArraySlice<UInt8>) -> UInt64 {
        slice.reduce(0) { ($0 << 8) | UInt64($1) }
    }

    private func error(_ reason: String, at offset: Int) -> InterchangeError {
        InterchangeError(reason: "binary plist: \(reason)", location: .byteOffset(offset))
    }

    private func read(_ size: Int, at offset: Int) throws(InterchangeError) -> ArraySlice<UInt8> {
        guard offset >= 0, size >= 0, offset <= offsetTableOffset - size else {
            throw error("object runs past the end", at: offset)
        }
        return try bytes.slice(at: offset, count: size)
    }

    private func offset(ofObject index: Int) throws(InterchangeError) -> Int {
        let start = offsetTableOffset + index * offsetSize
        let value = Self.bigEndian(try bytes.slice(at: start, count: offsetSize))
        guard value >= 8, value < UInt64(offsetTableOffset) else {
            throw error("object \(index) has an invalid offset", at: start)
        }
        return Int(value)
    }

    /// Reads a count from a marker's low nibble, or from the integer object that follows.
    private func count(marker: UInt8, at offset: Int) throws(InterchangeError) -> (
        count: Int, start: Int
    ) {
        let nibble = Int(marker & 0x0F)
        if nibble < 15 { return (nibble, offset + 1) }
        let intMarker = try read(1, at: offset + 1).first ?? 0
        guard intMarker & 0xF0 == 0x10 else { throw error("invalid count", at: offset + 1) }
        let size = 1 << Int(intMarker & 0x0F)
        guard size <= 8 else { throw error("invalid count", at: offset + 1) }
        let value = Self.bigEndian(try read(size, at: offset + 2))
        guard value < UInt64(bytes.count) else { throw error("count too large", at: offset) }
        return (Int(value), offset + 2 + size)
    }

    /// The object at `index`, decoded once, and charged to the budget on every reference
    /// with what it expands to.
    private mutating func charged(_ index: Int, depth: Int) throws(InterchangeError) -> (
        value: PreferenceValue, values: Int, bytes: Int
    ) {
        guard index >= 0, index < objectCount else {
            throw error("reference \(index) out of range", at: 0)
        }
        guard depth < DecodingBudget.maximumDepth else { throw error("nesting too deep", at: 0) }
        let entry: (value: PreferenceValue, values: Int, bytes: Int)
        let cost: (values: Int, bytes: Int)
        if let known = decoded[index] {
            // Another reference to it: charged with everything it expands to.
            entry = known
            cost = (known.values, known.bytes)
        } else {
            guard visiting.insert(index).inserted else {
                throw error("object \(index) contains itself", at: 0)
            }
            defer { visiting.remove(index) }
            entry = try object(at: index, depth: depth)
            decoded[index] = entry
            if case .array = entry.value {
            } else if case .dictionary = entry.value {
            } else {
                decodedBytes += entry.bytes
            }
            // The first time, its children were charged as they were decoded.
            switch entry.value {
            case .array, .dictionary: cost = (1, 0)
            default: cost = (entry.values, entry.bytes)
            }
        }
        do {
            try budget.spend(values: cost.values, bytes: cost.bytes)
        } catch {
            throw InterchangeError(reason: "binary plist: \(error.reason)")
        }
        return entry
    }

    /// Decodes the object at `index` and counts what it expands to: its children's values and
    /// bytes (each reference counted) plus its own.
    private mutating func object(at index: Int, depth: Int) throws(InterchangeError) -> (
        value: PreferenceValue, values: Int, bytes: Int
    ) {
        let start = try offset(ofObject: index)
        let marker = try read(1, at: start).first ?? 0
        switch marker >> 4 {
        case 0x0:
            switch marker {
            case 0x08: return (.bool(false), 1, 0)
            case 0x09: return (.bool(true), 1, 0)
            default:
                throw error("unsupported object type 0x\(String(marker, radix: 16))", at: start)
            }
        case 0x1:
            let size = 1 << Int(marker & 0x0F)
            guard size <= 16 else { throw error("invalid integer size", at: start) }
            let raw = try read(size, at: start + 1)
            if size == 16 {
                // 128-bit integers hold unsigned 64-bit values; ours fit in Int only when
                // the high half is zero.
                let value = Self.bigEndian(raw.suffix(8))
                guard Self.bigEndian(raw.prefix(8)) == 0, let exact = Int(exactly: value) else {
                    throw error("integer out of range", at: start)
                }
                return (.int(exact), 1, 0)
            }
            let value = Self.bigEndian(raw)
            return (.int(size == 8 ? Int(Int64(bitPattern: value)) : Int(value)), 1, 0)
        case 0x2:
            let size = 1 << Int(marker & 0x0F)
            let raw = Self.bigEndian(try read(size, at: start + 1))
            switch size {
            case 4: return (.double(Double(Float(bitPattern: UInt32(raw)))), 1, 0)
            case 8: return (.double(Double(bitPattern: raw)), 1, 0)
            default: throw error("invalid real size", at: start)
            }
        case 0x3:
            guard marker == 0x33 else { throw error("invalid date", at: start) }
            let raw = Self.bigEndian(try read(8, at: start + 1))
            return (.date(Date(timeIntervalSinceReferenceDate: Double(bitPattern: raw))), 1, 0)
        case 0x4:
            let (length, dataStart) = try count(marker: marker, at: start)
            return (.data(Data(try read(length, at: dataStart))), 1, length)
        case 0x5:
            let (length, textStart) = try count(marker: marker, at: start)
            let raw = try read(length, at: textStart)
            guard raw.allSatisfy({ $0 < 0x80 }) else {
                throw error("invalid ASCII string", at: start)
            }
            return (.string(String(decoding: raw, as: UTF8.self)), 1, length)
        case 0x6:
            let (length, textStart) = try count(marker: marker, at: start)
            guard length <= Int.max / 2 else { throw error("string too long", at: start) }
            let raw = try read(length * 2, at: textStart)
            var units: [UInt16] = []
            units.reserveCapacity(length)
            var iterator = raw.makeIterator()
            while let high = iterator.next(), let low = iterator.next() {
                units.append(UInt16(high) << 8 | UInt16(low))
            }
            guard let text = String(validating: units, as: UTF16.self) else {
                throw error("invalid UTF-16 string", at: start)
            }
            return (.string(text), 1, length * 2)
        case 0xA:
            let (length, listStart) = try count(marker: marker, at: start)
            let references = try self.references(length, at: listStart)
            var values: [PreferenceValue] = []
            values.reserveCapacity(references.count)
            var (count, size) = (1, 0)
            for reference in references {
                let child = try charged(reference, depth: depth + 1)
                values.append(child.value)
                count += child.values
                size += child.bytes
            }
            return (.array(values), count, size)
        case 0xD:
            let (length, listStart) = try count(marker: marker, at: start)
            let references = try self.references(length * 2, at: listStart)
            let isTopLevel = index == topIndex
            var entries: [String: PreferenceValue] = [:]
            var ordered: [(key: String, value: PreferenceValue)] = []
            var names: Set<ExactName> = []
            var (count, size) = (1, 0)
            for (keyReference, valueReference) in zip(
                references.prefix(length), references.suffix(length))
            {
                let key = try charged(keyReference, depth: depth + 1)
                guard case .string(let name) = key.value else {
                    throw error("dictionary key is not a string", at: start)
                }
                let value = try charged(valueReference, depth: depth + 1)
                guard names.insert(ExactName(name)).inserted else {
                    throw error("dictionary key '\(name)' appears twice", at: start)
                }
                if isTopLevel {
                    // Kept whole in `ordered`; the dictionary keeps one of two spellings.
                    ordered.append((name, value.value))
                    entries[name] = value.value
                } else if entries.updateValue(value.value, forKey: name) != nil {
                    throw error(
                        "a nested dictionary holds the key '\(name)' in two Unicode spellings",
                        at: start)
                }
                count += key.values + value.values
                size += key.bytes + value.bytes
            }
            if isTopLevel { topLevelEntries = ordered }
            return (.dictionary(entries), count, size)
        default:
            throw error("unsupported object type 0x\(String(marker, radix: 16))", at: start)
        }
    }

    private func references(_ count: Int, at offset: Int) throws(InterchangeError) -> [Int] {
        guard count <= objectCount * 2 else { throw error("too many references", at: offset) }
        let raw = try read(count * referenceSize, at: offset)
        var result: [Int] = []
        result.reserveCapacity(count)
        var position = raw.startIndex
        for _ in 0..<count {
            let value = Self.bigEndian(raw[position..<position + referenceSize])
            guard value < UInt64(objectCount) else {
                throw error("reference out of range", at: offset)
            }
            result.append(Int(value))
            position += referenceSize
        }
        return result
    }
}

/// The bytes a binary property list is read from: in memory, or a file read where needed
/// (``PropertyListFile``).
package protocol PropertyListBytes {
    /// How many there are.
    var count: Int { get }
    /// `count` bytes from `offset`, a range the reader checked to lie within ``count``.
    func slice(at offset: Int, count: Int) throws(InterchangeError) -> ArraySlice<UInt8>
}

extension [UInt8]: PropertyListBytes {
    package func slice(at offset: Int, count: Int) -> ArraySlice<UInt8> {
        self[offset..<(offset + count)]
    }
}

/// A binary property list read from a file as its objects are needed, through a few blocks
/// of 64 KB kept: a file of any size is walked in memory that does not grow with it.
package final class PropertyListFile: PropertyListBytes {
    package let count: Int
    private let read: (_ offset: Int, _ count: Int) throws -> [UInt8]
    /// The blocks kept, the one used last at the end.
    private var blocks: [(index: Int, bytes: [UInt8])] = []
    private static let blockSize = 1 << 16
    private static let blocksKept = 8

    /// A file of `size` bytes, whose bytes `read` gives (fewer only at its end).
    package init(size: Int, read: @escaping (_ offset: Int, _ count: Int) throws -> [UInt8]) {
        count = size
        self.read = read
    }

    package func slice(at offset: Int, count size: Int) throws(InterchangeError) -> ArraySlice<
        UInt8
    > {
        // The reader checks its ranges; this keeps one outside the file from reaching a
        // block or `read`.
        guard offset >= 0, size >= 0, offset <= count - size else {
            throw InterchangeError(reason: "binary plist: a read outside the file")
        }
        guard size > 0 else { return [] }
        let first = offset / Self.blockSize
        let last = (offset + size - 1) / Self.blockSize
        let start = offset - first * Self.blockSize
        if first == last {
            let block = try self.block(first)
            guard start + size <= block.count else { throw Self.changed }
            return block[start..<(start + size)]
        }
        // Long data is read as it is, past the blocks.
        if last - first >= Self.blocksKept / 2 { return ArraySlice(try exactly(size, at: offset)) }
        var joined: [UInt8] = []
        for index in first...last { joined += try block(index) }
        guard start + size <= joined.count else { throw Self.changed }
        return joined[start..<(start + size)]
    }

    private func block(_ index: Int) throws(InterchangeError) -> [UInt8] {
        if let found = blocks.lastIndex(where: { $0.index == index }) {
            let block = blocks.remove(at: found)
            blocks.append(block)
            return block.bytes
        }
        let offset = index * Self.blockSize
        let bytes = try exactly(min(Self.blockSize, count - offset), at: offset)
        if blocks.count == Self.blocksKept { blocks.removeFirst() }
        blocks.append((index, bytes))
        return bytes
    }

    private func exactly(_ size: Int, at offset: Int) throws(InterchangeError) -> [UInt8] {
        let bytes: [UInt8]
        do {
            bytes = try read(offset, size)
        } catch {
            throw InterchangeError(reason: "binary plist: the file could not be read: \(error)")
        }
        guard bytes.count == size else { throw Self.changed }
        return bytes
    }

    private static var changed: InterchangeError {
        InterchangeError(reason: "binary plist: the file changed while it was read")
    }
}
