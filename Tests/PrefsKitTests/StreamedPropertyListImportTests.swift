import Foundation
import TestSupport
import Testing

@testable import PrefsKit

/// A property list read one entry at a time (`XMLPropertyListEntryStream`, and the binary
/// reader through `PropertyListFile`): the same entries as reading it whole, wherever the
/// pieces are cut; nil (read it whole) for anything else, hostile or only unusual; and an
/// import that finds the file changed since it was checked stores nothing.
@Suite struct StreamedPropertyListImportTests {
    /// A store of `count` keys of every value a property list keeps.
    static func store(count: Int) throws -> PreferenceStore {
        let store = PreferenceStore(database: try AppDatabase.inMemory())
        try store.transaction { edit in
            for index in 0..<count {
                let value: PreferenceValue =
                    switch index % 7 {
                    case 0: .string("caf\u{E9} <&> ]]> \(index)")
                    case 1:
                        .array([.int(index), .dictionary(["a": .bool(true), "b": .array([])])])
                    case 2: .double(Double(index) / 3)
                    case 3: .date(Date(timeIntervalSince1970: Double(index) * 1_000))
                    case 4: .data(Data([0, 1, 2, UInt8(index % 256)]))
                    case 5: .bool(index % 2 == 0)
                    default: .int(-index)
                    }
                try edit.setValue(value, forKey: String(format: "key%05d", index))
            }
        }
        return store
    }

    static func source(_ bytes: [UInt8], format: PropertyList.Format, piece: Int)
        -> StreamedImport
    {
        switch format {
        case .xml: .xmlPropertyList(StreamedImportTests.pieces(of: bytes, size: piece))
        case .binary:
            .binaryPropertyList(size: bytes.count) { offset, count in
                Array(bytes[min(offset, bytes.count)..<min(bytes.count, offset + count)])
            }
        }
    }

    /// What reading the whole file imports.
    static func wholeImport(_ bytes: [UInt8]) throws -> [(key: String, value: PreferenceValue)] {
        let copy = PreferenceStore(database: try AppDatabase.inMemory())
        try copy.importPropertyList(Data(bytes))
        return try copy.storedEntries()
    }

    @Test(arguments: [(PropertyList.Format.xml, 1), (.xml, 7), (.xml, 4_096), (.binary, 0)])
    func theEntriesAreThoseOfTheWholeReadingWhereverThePiecesAreCut(
        format: PropertyList.Format, piece: Int
    ) throws {
        // Past two blocks of 64 KB in the binary form, so that reads cross blocks.
        let count = 8_000
        let bytes = Array(try Self.store(count: count).exportPropertyList(format: format))
        #expect(format == .xml || bytes.count > 3 << 16, "\(bytes.count) bytes")
        #expect(
            try PreferenceStore.countStreamable(Self.source(bytes, format: format, piece: piece))
                == count)
        let copy = PreferenceStore(database: try AppDatabase.inMemory())
        #expect(
            try copy.importStreamed(Self.source(bytes, format: format, piece: piece), count: count)
                == count)
        let whole = try Self.wholeImport(bytes)
        #expect(whole.count == count)
        let streamed = try copy.storedEntries()
        #expect(streamed.map(\.key) == whole.map(\.key))
        #expect(streamed.map(\.value) == whole.map(\.value))
    }

    @Test(arguments: PropertyList.Format.allCases)
    func twoSpellingsOfAKeyAreTwoKeys(format: PropertyList.Format) throws {
        let store = PreferenceStore(database: try AppDatabase.inMemory())
        try store.setValue(.int(1), forKey: "caf\u{E9}")
        try store.setValue(.int(2), forKey: "cafe\u{301}")
        let bytes = Array(try store.exportPropertyList(format: format))
        #expect(
            try PreferenceStore.countStreamable(Self.source(bytes, format: format, piece: 3)) == 2)
        let copy = PreferenceStore(database: try AppDatabase.inMemory())
        #expect(
            try copy.importStreamed(Self.source(bytes, format: format, piece: 3), count: 2) == 2)
        #expect(try copy.storedEntries().map(\.value) == [.int(2), .int(1)])
    }

    @Test(arguments: PropertyList.Format.allCases)
    func anEmptyDictionaryStreams(format: PropertyList.Format) throws {
        let bytes = Array(try Self.store(count: 0).exportPropertyList(format: format))
        #expect(
            try PreferenceStore.countStreamable(Self.source(bytes, format: format, piece: 5)) == 0)
    }

    /// Comments, processing instructions, CDATA and references wherever XML allows them,
    /// and a plist element without its DOCTYPE: streamed, and read as the whole reader does.
    @Test func anUnusualButValidXMLDocumentStreams() throws {
        let text = """
            \u{FEFF}<?xml version="1.0"?><!-- a > b -->
            <!DOCTYPE plist [ <!ELEMENT x ANY> ]>
            <plist version='1.0'><?pi ?>
            <dict><!-- <key>no</key> -->
              <key>a<![CDATA[</key>]]></key><!-- between --><string>x&lt;&#233;</string>
              <key>b</key><dict><key>k</key><array><true/><false></false></array></dict>
              <key>c</key><string/>
            </dict>
            </plist>
            <!-- after -->

            """
        let bytes = Array(text.utf8)
        for piece in [1, 2, 3, 64] {
            let source = StreamedImport.xmlPropertyList(
                StreamedImportTests.pieces(of: bytes, size: piece))
            #expect(try PreferenceStore.countStreamable(source) == 3, "pieces of \(piece)")
        }
        let copy = PreferenceStore(database: try AppDatabase.inMemory())
        let source = StreamedImport.xmlPropertyList(StreamedImportTests.pieces(of: bytes, size: 2))
        #expect(try copy.importStreamed(source, count: 3) == 3)
        let whole = try Self.wholeImport(bytes)
        #expect(try copy.storedEntries().map(\.key) == whole.map(\.key))
        #expect(try copy.storedEntries().map(\.value) == whole.map(\.value))
        #expect(try copy.value(forKey: "a</key>") == .string("x<\u{E9}"))
    }

    /// Each is read whole instead, where its problem, if any, is named.
    @Test(arguments: [
        // Keys out of byte order, or twice.
        "<plist><dict><key>b</key><true/><key>a</key><true/></dict></plist>",
        "<plist><dict><key>a</key><true/><key>a</key><false/></dict></plist>",
        // Not a dictionary, or one the stream leaves to the whole reader.
        "<plist><array><true/></array></plist>",
        "<plist><dict x='1'><key>a</key><true/></dict></plist>",
        // Broken outlines.
        "<plist><dict><key>a</key><true/></dict></plist> x",
        "<plist><dict><key>a</key><true/></dict></plist><plist/>",
        "<plist><dict><key>a</key><true/></dict>",
        "<plist><dict><key>a</key><true/>",
        "<plist><dict><key>a</key></dict></plist>",
        "<plist><dict><key>a</key><string>x</dict></plist>",
        "<plist><dict><key>a</key><true/>text<key>b</key><true/></dict></plist>",
        "<plist><dict><string>a</string><true/></dict></plist>",
        "<plist><dict><key>a</key><integer>one</integer></dict></plist>",
        "<plist><dict><key>a</key><true/><!-- unclosed </dict></plist>",
        "<plist/>",
        "",
        // A key the rules refuse.
        "<plist><dict><key></key><true/></dict></plist>",
        "<plist><dict><key>a&#0;</key><true/></dict></plist>",
    ])
    func anythingButAnOrderedXMLDictionaryIsReadWhole(text: String) throws {
        let source = StreamedImport.xmlPropertyList(
            StreamedImportTests.pieces(of: Array(text.utf8), size: 5))
        #expect(try PreferenceStore.countStreamable(source) == nil)
    }

    /// A binary property list of the given objects (each its encoded bytes; references
    /// one byte), its top object `top`.
    static func binary(_ objects: [[UInt8]], top: Int = 0) -> [UInt8] {
        var bytes = Array("bplist00".utf8)
        var offsets: [Int] = []
        for object in objects {
            offsets.append(bytes.count)
            bytes += object
        }
        let table = bytes.count
        for offset in offsets { bytes += [UInt8(offset >> 8), UInt8(offset & 0xFF)] }
        bytes += [0, 0, 0, 0, 0, 0, 2, 1]
        bytes += withUnsafeBytes(of: UInt64(objects.count).bigEndian, Array.init)
        bytes += withUnsafeBytes(of: UInt64(top).bigEndian, Array.init)
        bytes += withUnsafeBytes(of: UInt64(table).bigEndian, Array.init)
        return bytes
    }

    /// Hostile and unusual binary files: each is read whole, where the reader names what is
    /// wrong; none loops or traps.
    @Test func aHostileBinaryPropertyListIsReadWhole() throws {
        let key: [UInt8] = [0x51, UInt8(ascii: "a")]
        let other: [UInt8] = [0x51, UInt8(ascii: "b")]
        let cases: [(String, [UInt8])] = [
            // The top object an array.
            ("array", Self.binary([[0xA1, 1], [0x09]])),
            // An entry that holds the top dictionary: a cycle.
            ("cycle", Self.binary([[0xD1, 1, 0], key])),
            // A reference past the objects.
            ("reference", Self.binary([[0xD1, 1, 9], key])),
            // A key that is not a string.
            ("key", Self.binary([[0xD1, 1, 1], [0x09]])),
            // Keys out of order.
            ("order", Self.binary([[0xD2, 2, 1, 3, 3], key, other, [0x09]])),
            // More entries than the file has room for.
            ("count", Self.binary([[0xDF, 0x10, 0x7F, 1, 2], key, [0x09]])),
            // A value past the end of the objects.
            ("value", Self.binary([[0xD1, 1, 2], key, [0x5F, 0x10, 0x7F]])),
        ]
        for (name, bytes) in cases {
            let source = StreamedImport.binaryPropertyList(size: bytes.count) { offset, count in
                Array(bytes[min(offset, bytes.count)..<min(bytes.count, offset + count)])
            }
            #expect(try PreferenceStore.countStreamable(source) == nil, "\(name)")
        }
        // The same outline, well formed, streams.
        let good = Self.binary([[0xD2, 1, 2, 3, 3], key, other, [0x09]])
        let source = StreamedImport.binaryPropertyList(size: good.count) { offset, count in
            Array(good[min(offset, good.count)..<min(good.count, offset + count)])
        }
        #expect(try PreferenceStore.countStreamable(source) == 2)
    }

    /// Storing the entries takes time that is not decoding: a walk whose entries take
    /// longer in all than the decoding time limit (made 1 s here) still reads every one.
    /// (The limit counts the decoding thread's CPU, so waiting costs it nothing either: a
    /// machine too busy to run the decoding is no reason to refuse the file.)
    /// The values and bytes of the whole file are still charged to one budget, so that
    /// entries that all share one large object cannot make the walk endless.
    @Test func theTimeSpentStoringEntriesIsNotChargedToDecoding() throws {
        let count = 3_000
        let bytes = Array(try Self.store(count: count).exportPropertyList(format: .binary))
        var seen = 0
        let isWhole = try BinaryPropertyListReader.walkEntries(
            bytes, budget: DecodingBudget(seconds: 1)
        ) { _, _ in
            seen += 1
            usleep(1_000)  // 3 s of storing in all
            return true
        }
        #expect(isWhole)
        #expect(seen == count)
    }

    /// The limit is CPU, not the wall clock: a walk that spends 3 s of wall time waiting (a
    /// loaded machine, a process stopped and resumed) inside one budget of 1 s, without the
    /// restart between entries, is not refused; one that spends the CPU is.
    @Test func theDecodingLimitCountsCPUNotTheWallClock() throws {
        let budget = DecodingBudget(seconds: 1)
        let start = ContinuousClock.now
        while ContinuousClock.now - start < .seconds(3) {
            usleep(50_000)
            try budget.checkTime()
        }
        let busy = DecodingBudget(seconds: 1)
        var spun: UInt64 = 0
        #expect(throws: DecodingBudget.Exceeded.self) {
            let spinning = ContinuousClock.now
            while ContinuousClock.now - spinning < .seconds(20) {
                for step in 0..<100_000 { spun = spun &* 31 &+ UInt64(step) }
                try busy.checkTime()
            }
        }
        #expect(spun != 1)
    }

    /// A range past the end of the file, or before its start, is an error, never a read
    /// of a negative count.
    @Test func aReadOutsideTheFileIsAnErrorNotATrap() throws {
        let bytes: [UInt8] = Array(repeating: 7, count: 100)
        let file = PropertyListFile(size: bytes.count) { offset, count in
            Array(bytes[offset..<(offset + count)])
        }
        #expect(throws: InterchangeError.self) { try file.slice(at: 90, count: 20) }
        #expect(throws: InterchangeError.self) { try file.slice(at: 200, count: 1) }
        #expect(throws: InterchangeError.self) { try file.slice(at: -1, count: 1) }
        #expect(try file.slice(at: 90, count: 10).count == 10)
    }

    /// A file that is shorter when it is read than it said: no trap, no entry stored.
    @Test(arguments: PropertyList.Format.allCases)
    func aFileThatChangedSinceItWasCheckedImportsNothing(format: PropertyList.Format) throws {
        let bytes = Array(try Self.store(count: 300).exportPropertyList(format: format))
        let count = try PreferenceStore.countStreamable(
            Self.source(bytes, format: format, piece: 999))
        #expect(count == 300)
        let shorter = Array(try Self.store(count: 299).exportPropertyList(format: format))
        let copy = PreferenceStore(database: try AppDatabase.inMemory())
        try copy.setValue(.int(1), forKey: "kept")
        let changed: StreamedImport =
            switch format {
            case .xml: Self.source(shorter, format: .xml, piece: 999)
            // The size read before; the bytes now fewer.
            case .binary:
                .binaryPropertyList(size: bytes.count) { offset, count in
                    Array(shorter[min(offset, shorter.count)..<min(shorter.count, offset + count)])
                }
            }
        #expect(throws: PreferenceError.self) {
            try copy.importStreamed(changed, count: count ?? 0, replacing: true)
        }
        #expect(try copy.storedEntries().map(\.key) == ["kept"])
    }
}
