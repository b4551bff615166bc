import Foundation
import Testing

@testable import SQLiteCore

/// Text binds live in a per-statement arena (bound as SQLITE_STATIC) until the next reset;
/// these check that what SQLite reads is always what was bound, whatever the sizes.
@Suite struct StatementBindingTests {
    let connection: Connection

    init() throws {
        connection = try Connection(path: ":memory:")
        try connection.execute(
            sql: "CREATE TABLE t (id INTEGER PRIMARY KEY, a TEXT, b TEXT, c TEXT)")
    }

    /// Strings of every size around the arena's block sizes, several per statement, many runs.
    @Test func manyBindsOfEverySizeReadBackExactly() throws {
        let insert = try connection.makeStatement(
            sql: "INSERT INTO t (id, a, b, c) VALUES (?, ?, ?, ?)")
        var expected: [Int64: [String]] = [:]
        var generator = SystemRandomNumberGenerator()
        for id in Int64(0)..<300 {
            let texts = (0..<3).map { column -> String in
                let size = [0, 1, 15, 16, 255, 256, 257, 1_000, 5_000][
                    Int.random(in: 0..<9, using: &generator)]
                return String(
                    repeating: Character(UnicodeScalar(UInt8(97 + (Int(id) + column) % 26))),
                    count: size)
                    + (id % 7 == 0 ? "é✓" : "")
            }
            expected[id] = texts
            // Alternate the two ways of starting a run.
            if id % 2 == 0 { insert.reset() } else { insert.rewind() }
            try insert.bind(id, at: 1)
            for (offset, text) in texts.enumerated() { try insert.bind(text, at: offset + 2) }
            try insert.step()
        }
        for row in try connection.rows(sql: "SELECT id, a, b, c FROM t") {
            let id = try #require(row.get(0, as: Int64.self))
            #expect(
                [
                    row.get(1, as: String.self), row.get(2, as: String.self),
                    row.get(3, as: String.self),
                ]
                    == expected[id]?.map { Optional($0) })
        }
        #expect(try connection.scalar(Int.self, sql: "SELECT count(*) FROM t") == 300)
    }

    /// An empty string binds as text, never as NULL.
    @Test func emptyStringIsTextNotNull() throws {
        let statement = try connection.makeStatement(
            sql: "SELECT typeof(?), length(?2), ?3 IS NULL")
        try statement.bind("", at: 1)
        try statement.bind("", at: 2)
        try statement.bind(nil as String?, at: 3)
        #expect(try statement.step())
        #expect(statement.text(at: 0) == "text")
        #expect(statement.int64(at: 1) == 0)
        #expect(statement.int64(at: 2) == 1)
    }

    /// reset() clears every binding; rewind() keeps them unless the text memory had to grow.
    @Test func resetClearsBindingsAndRewindKeepsThem() throws {
        let statement = try connection.makeStatement(sql: "SELECT ?, ?")
        // The first text bound has no memory to go to yet: that rewind clears.
        try statement.bind("warm-up", at: 1)
        statement.rewind()
        try statement.bindKept("kept", at: 1)
        try statement.bind("short", at: 2)
        let clears = statement.bindingClears
        #expect(try statement.step())
        statement.rewind()
        #expect(statement.bindingClears == clears)
        try statement.bind(Int64(8), at: 2)
        #expect(try statement.step())
        #expect(statement.optionalText(at: 0) == "kept")
        #expect(statement.int64(at: 1) == 8)
        statement.reset()
        #expect(statement.bindingClears == clears + 1)
        #expect(try statement.step())
        #expect(statement.optionalText(at: 0) == nil)
        #expect(statement.isNull(at: 1))
    }

    /// A kept binding survives rewinds, and bindingClears says when it did not.
    @Test func keptBindingLastsUntilTheBindingsAreCleared() throws {
        let statement = try connection.makeStatement(sql: "SELECT ?1, ?2")
        try statement.bindKept("suite", at: 1)
        let clears = statement.bindingClears
        for round in 0..<50 {
            // Large text overflows the arena now and then, which clears the bindings.
            try statement.bind(String(repeating: "x", count: round * 97), at: 2)
            #expect(try statement.step())
            if statement.bindingClears == clears {
                #expect(statement.optionalText(at: 0) == "suite")
            }
            #expect(statement.text(at: 1).count == round * 97)
            statement.rewind()
            if statement.bindingClears != clears { break }
        }
        statement.reset()
        #expect(statement.bindingClears != clears)
    }

    /// A repeated column keeps its String while the bytes stay the same, and changes on
    /// any other bytes (a prefix, an accent, the empty string) and on NULL.
    @Test func repeatedTextChangesOnlyWithTheBytes() throws {
        try connection.execute(
            sql: """
                INSERT INTO t (id, a) VALUES (1, NULL), (2, 'same'), (3, 'same'), (4, 'samé'),
                (5, 'sam'), (6, ''), (7, ''), (8, NULL), (9, NULL), (10, 'same')
                """)
        let statement = try connection.makeStatement(sql: "SELECT a FROM t ORDER BY id")
        var column = RepeatedText()
        var seen: [(changed: Bool, value: String?)] = []
        while try statement.step() {
            let changed = column.read(statement, at: 0)
            seen.append((changed, column.value))
        }
        #expect(
            seen.map(\.changed) == [false, true, false, true, true, true, false, true, false, true])
        #expect(
            seen.map(\.value) == [nil, "same", "same", "samé", "sam", "", "", nil, nil, "same"])
        #expect(column.bytes == Array("same".utf8))
    }

    /// lookUp binds one key, keeps the other bindings, and reads the tag and the value of
    /// the one row (or says there is none); keys of every size, tags of every length.
    @Test func lookUpReadsTheTagAndTheValueAndKeepsTheOtherBindings() throws {
        try connection.execute(
            sql:
                "CREATE TABLE kv (suite TEXT, key TEXT, tag TEXT, value ANY, PRIMARY KEY (suite, key))"
        )
        let insert = try connection.makeStatement(
            sql: "INSERT INTO kv (suite, key, tag, value) VALUES (?, ?, ?, ?)")
        let tags = (0...20).map { String(repeating: "t", count: $0) } + ["dictionary", "é"]
        var expected: [String: (tag: String, value: SQLiteValue)] = [:]
        for (index, tag) in tags.enumerated() {
            let key = String(repeating: "k", count: index * 37 + 1)
            let value: SQLiteValue =
                switch index % 4 {
                case 0: .integer(Int64(index))
                case 1: .real(Double(index) / 4)
                case 2: .text(String(repeating: "v", count: index * 11))
                default: .blob(Data([UInt8(index), 0, 255]))
                }
            try insert.bind(["s", key, tag, value])
            try insert.step()
            expected[key] = (tag, value)
        }
        // Another suite's row with the same key must never be read.
        try insert.bind(["other", "k", "wrong", 0])
        try insert.step()
        let select = try connection.makeStatement(
            sql: "SELECT tag, value FROM kv WHERE suite = ? AND key = ?")
        var clears = -1
        // As the store does: the kept suite is bound again whenever the bindings were cleared.
        func keepSuite() throws {
            if select.bindingClears != clears {
                try select.bindKept("s", at: 1)
                clears = select.bindingClears
            }
        }
        for round in 0..<3 {
            for (key, row) in expected.sorted(by: { $0.key < $1.key }) {
                try keepSuite()
                var tag = ShortText()
                let value = try select.lookUp(key, at: 2, tag: &tag)
                #expect(value == row.value, "round \(round), key of \(key.utf8.count) bytes")
                #expect(tag == ShortText(row.tag))
                #expect(tag.count == row.tag.utf8.count)
            }
            try keepSuite()
            var tag = ShortText("untouched")
            #expect(try select.lookUp("missing", at: 2, tag: &tag) == nil)
            #expect(tag == ShortText("untouched"))
        }
        #expect(ShortText("int").low == 0x746e69)
        #expect(ShortText("dictionary").high == 0x7972)
        #expect(
            ShortText(String(repeating: "a", count: 16))
                != ShortText(String(repeating: "a", count: 17)))
    }

    /// lookUp lends SQLite the key's own bytes, which are gone once it returns: a run of the
    /// statement that does not bind the key again must read NULL there, never those bytes.
    @Test func aRunAfterALookUpDoesNotReadTheBytesItLent() throws {
        let select = try connection.makeStatement(sql: "SELECT 'text', ?2, ?1")
        try select.bindKept("kept", at: 1)
        var empty = ShortText()
        // The empty key is text of no bytes, not NULL; a key with a NUL byte keeps it.
        #expect(try select.lookUp("", at: 2, tag: &empty) == .text(""))
        #expect(try select.lookUp("a\u{0}b", at: 2, tag: &empty) == .text("a\u{0}b"))
        for length in [1, 15, 16, 200, 5_000] {
            var tag = ShortText()
            // A key made here and let go of after the lookup: heap bytes for the longer ones.
            let key = String((0..<length).map { Character(UnicodeScalar(UInt8(97 + $0 % 26))) })
            #expect(try select.lookUp(key, at: 2, tag: &tag) == .text(key))
            #expect(tag == ShortText("text"))
        }
        #expect(try select.step())
        #expect(select.isNull(at: 1))
        #expect(select.text(at: 2) == "kept")
        select.reset()
        // A later lookUp binds it again.
        var tag = ShortText()
        #expect(try select.lookUp("again", at: 2, tag: &tag) == .text("again"))
        // A value bound there since is what the next run reads, not NULL.
        try select.bind(Int64(5), at: 2)
        #expect(try select.step())
        #expect(select.int64(at: 1) == 5)
        select.reset()
        // A lookup at another parameter lets go of the first one's bytes too.
        try select.bind("kept", at: 1)
        #expect(try select.lookUp("lent", at: 2, tag: &tag) == .text("lent"))
        #expect(try select.lookUp("other", at: 1, tag: &tag) == .null)
        #expect(try select.step())
        #expect(select.isNull(at: 1))
        #expect(select.isNull(at: 2))
    }
}
