import Foundation
import TestSupport
import Testing

/// Bookmarks edited in place by the built binary: `add` of an item bookmarked already,
/// `edit`, `tag`, `untag`, and `move` by item. Each test is named after what it guards.
@Suite struct BookmarkEditCommandTests {
    let folder: TemporaryFolder
    let db: String

    init() throws {
        folder = try TemporaryFolder()
        db = folder.path("prefs.sqlite")
    }

    func run(_ arguments: String...) throws -> ProcessOutput {
        try runPrefs(["--db", db] + arguments)
    }

    /// The stored bookmark of an item, as `--json bookmark list` prints it.
    func stored(_ itemID: String) throws -> [String: Any] {
        let listed = try run("--json", "bookmark", "list")
        #expect(listed.status == 0, "\(listed.stderr)")
        let rows =
            try JSONSerialization.jsonObject(with: Data(listed.stdout.utf8)) as? [[String: Any]]
        return rows?.first { $0["itemID"] as? String == itemID } ?? [:]
    }

    func addLondon() throws {
        let added = try run(
            "bookmark", "add", "trip", "london", "--title", "London", "--folder", "Europe/UK",
            "--tag", "uk", "--note", "Rainy", "--url", "https://london.example")
        #expect(added.status == 0, "\(added.stderr)")
    }

    @Test func reAddingABookmarkKeepsEveryFieldNotGiven() throws {
        try addLondon()
        let again = try run(
            "bookmark", "add", "trip", "london", "--title", "London!", "--tag", "capital")
        #expect(again.status == 0, "\(again.stderr)")
        #expect(again.stdout == "1\n")
        #expect(again.stderr.hasPrefix("Updated"), "\(again.stderr)")
        let london = try stored("london")
        #expect(london["title"] as? String == "London!")
        #expect(london["folder"] as? [String] == ["Europe", "UK"])
        #expect(london["tags"] as? [String] == ["capital", "uk"])
        #expect(london["note"] as? String == "Rainy")
        #expect(london["url"] as? String == "https://london.example")
    }

    @Test func addingTheSameBookmarkTwiceMovesNoTime() throws {
        try addLondon()
        let first = try stored("london")
        usleep(20_000)
        try addLondon()
        let again = try run(
            "bookmark", "add", "trip", "london", "--title", "London", "--folder", "Europe/UK",
            "--tag", "uk", "--note", "Rainy", "--url", "https://london.example")
        #expect(again.status == 0, "\(again.stderr)")
        #expect(again.stderr.hasPrefix("Unchanged"), "\(again.stderr)")
        let london = try stored("london")
        #expect(london["updatedAt"] as? String != nil)
        #expect(london["updatedAt"] as? String == first["updatedAt"] as? String)
        let edited = try run("bookmark", "tag", "trip", "london", "uk")
        #expect(edited.status == 0, "\(edited.stderr)")
        #expect(try stored("london")["updatedAt"] as? String == first["updatedAt"] as? String)
    }

    @Test func editChangesOnlyTheFieldsGiven() throws {
        try addLondon()
        let edited = try run(
            "bookmark", "edit", "trip", "london", "--tag", "-uk", "--tag", "+city", "--tag",
            "big", "--clear-note", "--category", "Trips")
        #expect(edited.status == 0, "\(edited.stderr)")
        let london = try stored("london")
        #expect(london["title"] as? String == "London")
        #expect(london["tags"] as? [String] == ["big", "city"])
        #expect(london["note"] is NSNull)
        #expect(london["folder"] as? [String] == ["Trips"])
        #expect(london["url"] as? String == "https://london.example")
        let replaced = try run("bookmark", "edit", "trip", "london", "--tags", "a,b")
        #expect(replaced.status == 0, "\(replaced.stderr)")
        #expect(try stored("london")["tags"] as? [String] == ["a", "b"])
    }

    @Test func tagAndUntagChangeOnlyTags() throws {
        try addLondon()
        #expect(try run("bookmark", "tag", "trip", "london", "red", "blue").status == 0)
        #expect(try run("bookmark", "untag", "trip", "london", "uk", "red").status == 0)
        let london = try stored("london")
        #expect(london["tags"] as? [String] == ["blue"])
        #expect(london["title"] as? String == "London")
        #expect(london["note"] as? String == "Rainy")
    }

    @Test func anEditThatChangesNothingMovesNoTime() throws {
        try addLondon()
        let before = try stored("london")["updatedAt"] as? String
        #expect(try run("bookmark", "edit", "trip", "london", "--title", "London").status == 0)
        #expect(try run("bookmark", "tag", "trip", "london", "uk").status == 0)
        #expect(try run("bookmark", "untag", "trip", "london", "never").status == 0)
        #expect(
            try run("bookmark", "add", "trip", "london", "--title", "London", "--tag", "uk")
                .status == 0)
        #expect(try stored("london")["updatedAt"] as? String == before)
    }

    @Test func moveTakesTheItemAsWellAsTheId() throws {
        try addLondon()
        #expect(try run("bookmark", "add", "trip", "paris", "--title", "Paris").status == 0)
        let moved = try run("bookmark", "move", "trip", "paris", "--to", "0")
        #expect(moved.status == 0, "\(moved.stderr)")
        #expect(try stored("paris")["position"] as? Int == 0)
        #expect(try run("bookmark", "move", "1", "--to", "0").status == 0)
        #expect(try stored("london")["position"] as? Int == 0)
        let missing = try run("bookmark", "move", "trip", "rome", "--to", "0")
        #expect(missing.status == 1)
        #expect(missing.stderr == "Error: No bookmark of trip 'rome'\n")
    }

    /// `edit` takes the bookmark's id alone, as `move` does (an imported link's item id is
    /// its whole URL): `edit 1 --title T --tag x` changes the one bookmark; an id with no
    /// bookmark is 1, and a kind with no item id 64.
    @Test func editTakesTheIdAloneAsMoveDoes() throws {
        try addLondon()
        let edited = try run("bookmark", "edit", "1", "--title", "Londres", "--tag", "capital")
        #expect(edited.status == 0, "\(edited.stderr)")
        #expect(try stored("london")["title"] as? String == "Londres")
        #expect((try stored("london")["tags"] as? [String])?.contains("capital") == true)
        let missing = try run("bookmark", "edit", "9", "--title", "Nowhere")
        #expect(missing.status == 1)
        #expect(missing.stderr == "Error: No bookmark with id 9\n")
        let kindAlone = try run("bookmark", "edit", "trip", "--title", "X")
        #expect(kindAlone.status == 64)
        #expect(kindAlone.stderr.hasPrefix("Error: Missing expected argument '<item-id>'"))
    }

    @Test func editingAnItemNotBookmarkedChangesNothingAndSaysSo() throws {
        try addLondon()
        let missing = try run("bookmark", "edit", "trip", "rome", "--title", "Rome")
        #expect(missing.status == 1)
        #expect(missing.stderr == "Error: No bookmark of trip 'rome'\n")
        let empty = try run("bookmark", "edit", "trip", "london")
        #expect(empty.status == 64)
        let both = try run("bookmark", "edit", "trip", "london", "--note", "x", "--clear-note")
        #expect(both.status == 64)
        #expect(try stored("london")["note"] as? String == "Rainy")
        let noFile = try runPrefs(
            ["--db", folder.path("none.sqlite"), "bookmark", "edit", "trip", "x", "--title", "y"])
        #expect(noFile.status == 1)
        #expect(!FileManager.default.fileExists(atPath: folder.path("none.sqlite")))
    }
}
