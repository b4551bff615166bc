/// Walks an XML property list's tree of dictionaries, whose children are in an array under
/// one key, from bytes that come in pieces, holding one node's entries at a time per level
/// (an import of any size in memory that does not grow with it).
///
/// A node's entries other than its children are kept as the file's bytes until the node
/// ends, then handed together to ``XMLPropertyListReader`` at the depth they have in the
/// document, so that they read exactly as in a whole reading, its limits included. Anything the walk does not expect
/// (an entry that does not read, a key twice, a node or children array with attributes,
/// nesting near the limit) makes ``walk(childrenKey:event:)`` return nil: the caller then
/// reads the document whole, whose parser names the problem with its line.
struct XMLPropertyListTreeStream: XMLPieceReader {
    let next: () throws -> [UInt8]?
    var buffer: [UInt8] = []
    var position = 0
    var isAtEnd = false
    /// Nodes met so far (each element of a children array is one).
    private(set) var nodes = 0
    /// Whether the entries of nodes without children are read (and checked); when not,
    /// they are only found, and such a node ends with no entries.
    let readsEveryNode: Bool

    /// `next` gives the next piece of the document, nil at its end.
    init(next: @escaping () throws -> [UInt8]?, readsEveryNode: Bool = true) {
        self.next = next
        self.readsEveryNode = readsEveryNode
    }

    /// A dictionary being read: the top, or a node.
    private struct Frame {
        /// The node's number in the file's order; nil for the top.
        var number: Int?
        /// 0 for the top, 1 for its children.
        var level: Int
        /// The keys so far, as `String ==` compares them (a dictionary keeps one of two
        /// spellings; the whole reading refuses the second).
        var keys: Set<String> = []
        var hasChildren = false
        /// Its children array is open.
        var isInChildren = false
        /// Its entries but its children, each a `<key>` and its value as in the file: read
        /// together when the node ends (one reading a node, not one an entry).
        var unread: [UInt8] = []

        /// How deep the node's dictionary is in the document, as the whole reading counts:
        /// the top's is 1, each level adds its children array and a dictionary.
        var depth: Int { 2 * level + 1 }
    }

    /// Walks the tree, calling `event` in the file's order.
    ///
    /// - Returns: The top dictionary's entries but its children; nil when the document must
    ///   be read whole.
    mutating func walk(
        childrenKey: String, event: (PropertyList.XMLTreeEvent) throws -> Void
    ) throws -> [String: PreferenceValue]? {
        guard let isInPlist = try enterPropertyList(), try hasPrefix("<dict>") else { return nil }
        position += 6
        var frames = [Frame(level: 0)]
        var top: [String: PreferenceValue]?
        while var frame = frames.popLast() {
            guard try skipMisc(allowingDoctype: false) else { return nil }
            discardConsumed()
            if frame.isInChildren {
                if try hasPrefix("</array>") {
                    position += 8
                    frame.isInChildren = false
                    frames.append(frame)
                    continue
                }
                let number = nodes
                nodes += 1
                let level = frame.level + 1
                frames.append(frame)
                if try hasPrefix("<dict>") {
                    position += 6
                    // Its children array would be one deeper: near the limit, the whole
                    // reading decides.
                    guard 2 * level + 2 < DecodingBudget.maximumDepth else { return nil }
                    frames.append(Frame(number: number, level: level))
                    continue
                }
                if try hasPrefix("<dict/>") {
                    position += 7
                    try event(
                        .nodeEnd(node: number, level: level, entries: [:], hasChildren: false))
                    continue
                }
                // Anything else is no node, but is read to find what the whole reading
                // refuses.
                guard try tagName() != "dict", let end = try endOfElement(from: position)
                else { return nil }
                if readsEveryNode {
                    var entry = Array("<key>-</key>".utf8)
                    entry += buffer[position..<end]
                    guard decodeEntries(entry, depth: 2 * level - 1)?.count == 1 else {
                        return nil
                    }
                }
                position = end
                try event(.nodeEnd(node: number, level: level, entries: nil, hasChildren: false))
                continue
            }
            if try hasPrefix("</dict>") {
                position += 7
                var entries: [String: PreferenceValue]?
                if readsEveryNode || frame.hasChildren || frame.number == nil {
                    guard let read = decodeEntries(frame.unread, depth: frame.depth - 1),
                        read.count == frame.keys.count - (frame.hasChildren ? 1 : 0)
                    else { return nil }
                    entries = read
                }
                guard let number = frame.number else {
                    top = entries
                    break
                }
                try event(
                    .nodeEnd(
                        node: number, level: frame.level, entries: entries,
                        hasChildren: frame.hasChildren))
                continue
            }
            guard try tagName() == "key", let keyEnd = try endOfElement(from: position),
                let key = key(from: position, to: keyEnd), frame.keys.insert(key).inserted
            else { return nil }
            var valueStart = keyEnd
            guard try skipMisc(from: &valueStart) else { return nil }
            if key == childrenKey {
                if try hasPrefix("<array>", at: valueStart) {
                    position = valueStart + 7
                    frame.hasChildren = true
                    frame.isInChildren = true
                    if let number = frame.number {
                        try event(.childrenBegin(node: number, level: frame.level))
                    }
                    frames.append(frame)
                    continue
                }
                // An array with attributes would be read as a value, and its nodes lost.
                guard
                    try tagName(at: valueStart) != "array"
                        || hasPrefix("<array/>", at: valueStart)
                else { return nil }
            }
            guard let valueEnd = try endOfElement(from: valueStart) else { return nil }
            frame.unread += buffer[position..<valueEnd]
            position = valueEnd
            frames.append(frame)
        }
        guard let top, try leavePropertyList(isInPlist: isInPlist) else { return nil }
        return top
    }

    /// The key of the `<key>` element between the offsets: its bytes when they are plain
    /// text, else as the reader reads it (character references, CDATA); nil when it does
    /// not read.
    private func key(from start: Int, to end: Int) -> String? {
        let open = Array("<key>".utf8)
        let close = Array("</key>".utf8)
        if end - start >= open.count + close.count,
            buffer[start..<(start + open.count)].elementsEqual(open),
            buffer[(end - close.count)..<end].elementsEqual(close)
        {
            let text = buffer[(start + open.count)..<(end - close.count)]
            if text.allSatisfy({
                $0 >= 0x20 && $0 < 0x7F && $0 != UInt8(ascii: "<") && $0 != UInt8(ascii: "&")
            }) {
                return String(decoding: text, as: UTF8.self)
            }
        }
        var document = Array("<dict>".utf8)
        document += buffer[start..<end]
        document += "<true/></dict>".utf8
        guard let entries = try? XMLPropertyListReader.decodeEntries(document), entries.count == 1
        else { return nil }
        return entries[0].key
    }

    /// Reads `<key>`s and their values as the entries of a dictionary at `depth` (0 for a
    /// whole document); nil when they do not read.
    private func decodeEntries(_ entries: [UInt8], depth: Int) -> [String: PreferenceValue]? {
        var document = Array("<dict>".utf8)
        document += entries
        document += "</dict>".utf8
        guard let read = try? XMLPropertyListReader.decodeEntries(document, depth: depth) else {
            return nil
        }
        return Dictionary(read, uniquingKeysWith: { first, _ in first })
    }
}

extension Prefs.PropertyList {
    /// What a walk of an XML property list's tree meets, in the file's order
    /// (``walkXMLTree(next:childrenKey:event:)``).
    package enum XMLTreeEvent: Equatable {
        /// The children of node `node` (numbered from 0 in the file's order) begin; its
        /// level is 1 for the top's children.
        case childrenBegin(node: Int, level: Int)
        /// Node `node` ended: its entries but its children (nil for a node that is not a
        /// dictionary), and whether it has a children array.
        case nodeEnd(node: Int, level: Int, entries: [String: PreferenceValue]?, hasChildren: Bool)
    }

    /// Walks an XML property list's tree of dictionaries whose children are in an array
    /// under `childrenKey`, from its bytes in pieces, without holding it: `event` as each
    /// node's children begin and as each node ends. A node's other entries may come after
    /// its children (a writer that sorts keys puts `Children` before `Title`): a caller that
    /// needs them first walks twice.
    ///
    /// - Parameters:
    ///   - next: The document's next piece, nil at its end.
    ///   - readsEveryNode: False to read (and check) only the entries of nodes with
    ///     children: a node without ends with nil entries, and what is wrong in its entries
    ///     goes unnoticed (a first walk, for what a second needs before it meets it).
    /// - Returns: The top dictionary's entries but its children, and how many nodes there
    ///   are; nil when the document is not what decoding it whole takes, or must be read
    ///   whole to be told apart from it.
    package static func walkXMLTree(
        next: @escaping () throws -> [UInt8]?, childrenKey: String, readsEveryNode: Bool = true,
        event: (XMLTreeEvent) throws -> Void
    ) throws -> (top: [String: PreferenceValue], nodes: Int)? {
        var stream = XMLPropertyListTreeStream(next: next, readsEveryNode: readsEveryNode)
        guard let top = try stream.walk(childrenKey: childrenKey, event: event) else { return nil }
        return (top, stream.nodes)
    }
}
