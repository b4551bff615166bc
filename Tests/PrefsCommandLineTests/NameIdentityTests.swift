import Foundation
import TestSupport
import Testing

/// Names that Swift's `String ==` calls equal but whose bytes differ are two names on every
/// path: each keeps its own value through get, list, export and import (JSON and both
/// property lists), bookmarks, selections, both engines and sync. The attack: a file or
/// another device holds both spellings, and an export and import would otherwise lose one
/// value and put the other under the wrong name.
@Suite struct NameIdentityTests {
    /// Pairs of spellings: canonically equivalent (Swift calls them equal), and a
    /// compatibility pair (Swift calls them different; they must stay so).
    static let pairs: [(label: String, first: String, second: String)] = [
        ("combining mark", "caf\u{E9}", "cafe\u{301}"),
        ("angstrom sign", "\u{212B}ngstrom", "\u{C5}ngstrom"),
        ("hangul", "\u{D55C}", "\u{1112}\u{1161}\u{11AB}"),
        ("ohm sign", "\u{2126}", "\u{3A9}"),
        ("compatibility ligature", "\u{FB01}le", "file"),
    ]

    let folder: TemporaryFolder
    let db: String

    init() throws {
        folder = try TemporaryFolder()
        db = folder.path("prefs.sqlite")
    }

    @discardableResult
    func run(_ arguments: [String], on database: String? = nil) throws -> ProcessOutput {
        let result = try runPrefs(["--db", database ?? db] + arguments)
        #expect(result.status == 0, "\(arguments): \(result.stderr)")
        return result
    }

    /// Each line's bytes, so that the comparison is not Swift's.
    func byteLines(_ text: String) -> [[UInt8]] {
        Array(text.utf8).split(separator: UInt8(ascii: "\n")).map(Array.init)
    }

    @Test(arguments: pairs.map(\.label))
    func equivalentKeysKeepTheirOwnValuesThroughListExportAndImport(label: String) throws {
        let pair = try #require(Self.pairs.first { $0.label == label })
        try run(["set", "--type", "string", pair.first, "first-value"])
        try run(["set", "--type", "string", pair.second, "second-value"])
        #expect(try run(["get", pair.first]).stdout == "first-value\n")
        #expect(try run(["get", pair.second]).stdout == "second-value\n")
        // list shows both, each with its own bytes and value.
        let listed = byteLines(try run(["list"]).stdout)
        #expect(listed.count == 2)
        #expect(listed.contains(Array("\(pair.first)=first-value".utf8)))
        #expect(listed.contains(Array("\(pair.second)=second-value".utf8)))
        let names = try run(["list", "--names", "-z"]).stdout
        #expect(Array(names.utf8).split(separator: 0).count == 2)
        let json = try run(["--json", "list"]).stdout
        #expect(json.utf8.count > 0 && json.components(separatedBy: "\"key\"").count == 3)
        // Every export format, imported into a new file: both keys, their own values.
        for format in ["json", "plist", "binary-plist"] {
            let file = folder.path("export-\(format)")
            try run(["export", "--format", format, file])
            let copy = folder.path("copy-\(format).sqlite")
            try run(["import", file], on: copy)
            #expect(try run(["get", pair.first], on: copy).stdout == "first-value\n", "\(format)")
            #expect(
                try run(["get", pair.second], on: copy).stdout == "second-value\n", "\(format)")
            #expect(byteLines(try run(["list"], on: copy).stdout).count == 2, "\(format)")
        }
    }

    @Test(arguments: pairs.map(\.label))
    func equivalentItemIDsTagsAndCategoriesStayApart(label: String) throws {
        let pair = try #require(Self.pairs.first { $0.label == label })
        try run([
            "bookmark", "add", "trip", pair.first, "--title", "First", "--category", pair.first,
            "--tag", pair.first, "--tag", pair.second,
        ])
        try run([
            "bookmark", "add", "trip", pair.second, "--title", "Second", "--category", pair.second,
        ])
        let listed = try run(["--json", "bookmark", "list"]).stdout
        #expect(listed.components(separatedBy: "\"itemID\"").count == 3, "\(listed)")
        for format in ["json", "html"] {
            let file = folder.path("bookmarks.\(format)")
            try run(["bookmark", "export", "--format", format, file])
            let copy = folder.path("copy-\(format).sqlite")
            try run(["bookmark", "import", file], on: copy)
            let imported = try run(["--json", "bookmark", "list"], on: copy).stdout
            #expect(Array(imported.utf8).count > 0)
            for spelling in [pair.first, pair.second] {
                let category = try run(
                    ["bookmark", "list", "--category", spelling], on: copy
                ).stdout
                #expect(byteLines(category).count == 1, "\(format): \(category)")
            }
            if format == "json" {
                // Both tags of the first bookmark survive, and both item ids.
                #expect(imported.components(separatedBy: "\"itemID\"").count == 3)
                let tagged = try run(["bookmark", "list", "--tag", pair.second], on: copy).stdout
                #expect(byteLines(tagged).count == 1)
                let other = try run(["bookmark", "list", "--tag", pair.first], on: copy).stdout
                #expect(byteLines(other).count == 1)
            }
        }
    }

    @Test func equivalentSelectionNamesAndSuitesStayApart() throws {
        let (first, second) = ("caf\u{E9}", "cafe\u{301}")
        try run(["selection", "set", first, "1", "--count", "5"])
        try run(["selection", "set", second, "3", "--count", "5"])
        #expect(try run(["selection", "get", first]).stdout == "1\n")
        #expect(try run(["selection", "get", second]).stdout == "3\n")
        #expect(byteLines(try run(["selection", "list"]).stdout).count == 2)
        try run(["--suite", first, "set", "k", "one"])
        try run(["--suite", second, "set", "k", "two"])
        #expect(try run(["--suite", first, "get", "k"]).stdout == "one\n")
        #expect(try run(["--suite", second, "get", "k"]).stdout == "two\n")
        let suites = try run(["suites"]).stdout
        #expect(byteLines(suites).count == 2, "\(suites)")
    }

    @Test func equivalentKeysStayApartOnPostgreSQLAndThroughSync() throws {
        let server = try PostgresServer.start()
        let hub = server.target(database: try server.makeDatabase())
        let (first, second) = ("\u{212B}", "\u{C5}")
        let account = ["--account", "nina"]
        try run(account + ["set", "--type", "string", first, "angstrom-sign"], on: hub)
        try run(account + ["set", "--type", "string", second, "a-ring"], on: hub)
        #expect(try run(account + ["get", first], on: hub).stdout == "angstrom-sign\n")
        #expect(try run(account + ["get", second], on: hub).stdout == "a-ring\n")
        #expect(byteLines(try run(account + ["list"], on: hub).stdout).count == 2)
        let exported = folder.path("hub.json")
        try run(account + ["export", exported], on: hub)
        let copy = folder.path("from-hub.sqlite")
        try run(["import", exported], on: copy)
        #expect(try run(["get", first], on: copy).stdout == "angstrom-sign\n")
        #expect(try run(["get", second], on: copy).stdout == "a-ring\n")
        // Sync: one device sets both spellings; the other receives both, each with its value.
        let laptop = folder.path("laptop.sqlite")
        let phone = folder.path("phone.sqlite")
        try run(["set", "--type", "string", first, "from-laptop-1"], on: laptop)
        try run(["set", "--type", "string", second, "from-laptop-2"], on: laptop)
        try run(["bookmark", "add", "trip", first, "--title", "One", "--tag", first], on: laptop)
        try run(["bookmark", "add", "trip", second, "--title", "Two", "--tag", second], on: laptop)
        try run(["sync", "--hub", hub, "--account", "olga"], on: laptop)
        try run(["sync", "--hub", hub, "--account", "olga"], on: phone)
        #expect(try run(["get", first], on: phone).stdout == "from-laptop-1\n")
        #expect(try run(["get", second], on: phone).stdout == "from-laptop-2\n")
        let bookmarks = try run(["--json", "bookmark", "list"], on: phone).stdout
        #expect(bookmarks.components(separatedBy: "\"itemID\"").count == 3, "\(bookmarks)")
    }
}
