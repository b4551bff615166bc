/// Reads the entries of an XML property list whose top level is a dictionary from bytes
/// that come in pieces, holding one entry at a time (an import of any size in memory that
/// does not grow with it).
///
/// It finds where each entry (a `<key>` and the element after it) begins and ends, and
/// hands the entry to ``XMLPropertyListReader`` as a dictionary of its own, so that keys and
/// values read exactly as in a whole document. Anything it does not expect makes
/// ``walk(_:)`` return false: the caller then reads the document whole, whose parser names
/// the problem with its line.
struct XMLPropertyListEntryStream: XMLPieceReader {
    let next: () throws -> [UInt8]?
    var buffer: [UInt8] = []
    var position = 0
    var isAtEnd = false

    /// `next` gives the next piece of the document, nil at its end.
    init(next: @escaping () throws -> [UInt8]?) {
        self.next = next
    }

    /// Walks the top-level dictionary's entries in the file's order, calling `entry` with
    /// each; either returns false to stop, and so does the walk for an outline it does not
    /// expect or an entry that does not read.
    mutating func walk(_ entry: (String, PreferenceValue) throws -> Bool) throws -> Bool {
        guard let isInPlist = try enterPropertyList() else { return false }
        // `<dict>` or `<dict/>` exactly: attributes are left to the whole reader.
        var isOpen = true
        if try hasPrefix(Array("<dict/>".utf8)) {
            position += 7
            isOpen = false
        } else {
            guard try hasPrefix(Array("<dict>".utf8)) else { return false }
            position += 6
        }
        while isOpen {
            guard try skipMisc(allowingDoctype: false) else { return false }
            discardConsumed()
            if try hasPrefix(Array("</dict>".utf8)) {
                position += 7
                break
            }
            guard try tagName() == "key", let keyEnd = try endOfElement(from: position) else {
                return false
            }
            var end = keyEnd
            guard try skipMisc(from: &end), let valueEnd = try endOfElement(from: end) else {
                return false
            }
            var document = Array("<dict>".utf8)
            document += buffer[position..<valueEnd]
            document += "</dict>".utf8
            guard let entries = try? XMLPropertyListReader.decodeEntries(document),
                entries.count == 1, try entry(entries[0].key, entries[0].value)
            else { return false }
            position = valueEnd
        }
        return try leavePropertyList(isInPlist: isInPlist)
    }
}
