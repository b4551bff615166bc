#if canImport(FoundationEssentials) && !PREFS_FULL_FOUNDATION
    import FoundationEssentials
#else
    import Foundation
#endif

extension Prefs {
    /// Property lists in the XML and binary (`bplist00`) formats that UserDefaults and macOS
    /// `defaults export` write.
    ///
    /// Values map to ``PreferenceValue``: `<true/>`/`<false/>` to bool, `<integer>` to int,
    /// `<real>` to double, `<string>` to string, `<date>` to date, `<data>` to data, `<array>`
    /// and `<dict>` to array and dictionary. Writing, a URL becomes its absolute string and a
    /// JSON value its text, since property lists have no such types. Binary dates keep their
    /// full precision; XML dates have whole seconds, as the format defines.
    public enum PropertyList {
        /// The two encodings.
        public enum Format: String, Sendable, CaseIterable {
            /// The XML format (`<plist version="1.0">`).
            case xml
            /// The binary format (`bplist00`), as UserDefaults writes.
            case binary
        }

        /// Encodes a value.
        public static func encode(_ value: PreferenceValue, format: Format) -> Data {
            switch format {
            case .xml: Data(XMLPropertyListWriter.document(for: value).utf8)
            case .binary: BinaryPropertyListWriter.encode(value)
            }
        }

        /// Encodes a dictionary given as entries, in their order: unlike a Swift dictionary,
        /// entries keep keys whose bytes differ though Swift's `String ==` calls them equal.
        public static func encode(
            entries: [(key: String, value: PreferenceValue)], format: Format
        ) -> Data {
            switch format {
            case .xml: Data(XMLPropertyListWriter.document(forEntries: entries).utf8)
            case .binary: BinaryPropertyListWriter.encode(entries: entries)
            }
        }

        /// The same bytes as ``encode(entries:format:)``, handed to `sink` piece by piece:
        /// `walk` gives the entries, as many times as the format needs (the binary format
        /// six), the same each time.
        package static func encode(
            entries walk: PropertyListEntryWalk, format: Format,
            to sink: ([UInt8]) throws -> Void
        ) throws {
            switch format {
            case .xml: try XMLPropertyListWriter.write(entries: walk, to: sink)
            case .binary: try BinaryPropertyListWriter.encode(entries: walk, to: sink)
            }
        }

        /// Decodes a property list, detecting the format from its first bytes.
        ///
        /// - Throws: ``InterchangeError`` naming where the data went wrong.
        public static func decode(_ data: Data) throws(InterchangeError) -> PreferenceValue {
            try decode(data, format: detectFormat(data))
        }

        /// Decodes a property list of a known format.
        ///
        /// - Throws: ``InterchangeError`` naming where the data went wrong.
        public static func decode(_ data: Data, format: Format) throws(InterchangeError)
            -> PreferenceValue
        {
            switch format {
            case .xml: try XMLPropertyListReader.decode(Array(data))
            case .binary: try BinaryPropertyListReader.decode(Array(data))
            }
        }

        /// Decodes a property list whose top level is a dictionary into its entries, in the
        /// file's order, keeping keys whose bytes differ though Swift's `String ==` calls them
        /// equal (a dictionary would keep one); nil when the top level is not a dictionary.
        ///
        /// - Throws: ``InterchangeError`` naming where the data went wrong, or a key that appears
        ///   twice.
        public static func decodeEntries(_ data: Data) throws(InterchangeError) -> [(
            key: String, value: PreferenceValue
        )]? {
            switch detectFormat(data) {
            case .xml: try XMLPropertyListReader.decodeEntries(Array(data))
            case .binary: try BinaryPropertyListReader.decodeEntries(Array(data))
            }
        }

        /// `.binary` when the data starts with `bplist`, else `.xml`.
        public static func detectFormat(_ data: Data) -> Format {
            data.starts(with: Array("bplist".utf8)) ? .binary : .xml
        }
    }
}

/// Within the package, by its short name: apps see it as ``Prefs/PropertyList`` only, so
/// that it cannot collide with a type of theirs.
package typealias PropertyList = Prefs.PropertyList

extension Prefs.PropertyList {
    /// Walks a binary property list's tree of dictionaries whose children are in an array
    /// under `childrenKey`, read from a file where its objects are, without holding it:
    /// `top` with the top dictionary's other entries, then `visit` with each node's (nil
    /// for a node that is not a dictionary) and its level (1 for the top's children), in
    /// depth-first order. False when the file is not what decoding it whole takes, or when
    /// it shares a node (it is then read whole).
    ///
    /// - Parameters:
    ///   - size: The file's size.
    ///   - read: The file's bytes at an offset (fewer only at its end).
    package static func walkBinaryTree(
        size: Int, read: @escaping (_ offset: Int, _ count: Int) throws -> [UInt8],
        childrenKey: String, top: ([String: PreferenceValue]) throws -> Bool,
        visit: (_ entries: [String: PreferenceValue]?, _ level: Int) throws -> Void
    ) throws -> Bool {
        try BinaryPropertyListReader.walkTree(
            PropertyListFile(size: size, read: read), childrenKey: childrenKey, top: top,
            visit: visit)
    }
}

/// Calls its argument with each entry of a dictionary, in order; a writer that streams may
/// call it more than once, and each call must give the same entries.
package typealias PropertyListEntryWalk = (
    (_ key: String, _ value: PreferenceValue) throws -> Void
) throws -> Void

/// Bytes gathered for a sink and handed on in pieces of about 64 KB, counting what went.
struct ChunkedOutput {
    var bytes: [UInt8] = []
    private(set) var handedOn = 0

    /// Where the next byte goes, counted from the first.
    var position: Int { handedOn + bytes.count }

    mutating func append(_ more: [UInt8]) { bytes += more }

    mutating func append(_ text: String) { bytes += text.utf8 }

    /// Hands the bytes on once there are 64 KB of them.
    mutating func flushIfFull(into sink: ([UInt8]) throws -> Void) throws {
        if bytes.count >= 1 << 16 { try flush(into: sink) }
    }

    /// Hands on what is gathered.
    mutating func flush(into sink: ([UInt8]) throws -> Void) throws {
        guard !bytes.isEmpty else { return }
        try sink(bytes)
        handedOn += bytes.count
        bytes.removeAll(keepingCapacity: true)
    }
}
