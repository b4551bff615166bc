import Foundation
import TestSupport
import Testing

@testable import PrefsKit

@Suite struct SelectionTests {
    let selections: SelectionStore

    init() throws {
        selections = SelectionStore(database: try AppDatabase.inMemory())
    }

    @Test func carouselOfThirteenTripsStartsAtTwoAndClampsAtBothEnds() throws {
        let trips = try Fixtures.trips
        #expect(trips.count == 13)
        var carousel = try selections.define(
            "carousel", count: trips.count, policy: .clamp, initialIndex: 2)
        #expect(carousel.index == 2)
        for _ in 0..<20 { carousel = try selections.next("carousel") }
        #expect(carousel.index == 12)
        for _ in 0..<20 { carousel = try selections.previous("carousel") }
        #expect(carousel.index == 0)
    }

    @Test func featuredPagerWrapsAtBothEnds() throws {
        let featured = try Fixtures.movies.filter(\.isFeaturedMovie)
        #expect(featured.count == 4)
        try selections.define("featured", count: featured.count, policy: .wrap)
        #expect(try selections.previous("featured").index == 3)
        #expect(try selections.next("featured").index == 0)
        try selections.select(3, in: "featured")
        #expect(try selections.next("featured").index == 0)
    }

    @Test func articleListIsOptional() throws {
        let articles = try selections.define("articles", count: 5, policy: .optional)
        #expect(articles.index == nil)
        #expect(try selections.select(4, itemID: "a5", in: "articles").index == 4)
        let cleared = try selections.clear("articles")
        #expect(cleared.index == nil)
        #expect(cleared.itemID == nil)
        #expect(try selections.next("articles").index == 0)
    }

    @Test func outOfRangeSelectIsRejectedNamingTheRange() throws {
        try selections.define("carousel", count: 13, policy: .clamp, initialIndex: 2)
        for index in [13, -1, 100] {
            let error = #expect(throws: SelectionError.self) {
                try selections.select(index, in: "carousel")
            }
            #expect(
                error?.description
                    == "Index \(index) is out of range for 'carousel' (valid: 0...12)")
        }
        #expect(try selections.selection(named: "carousel")?.index == 2)
        #expect(throws: SelectionError.notFound(name: "nope")) { try selections.next("nope") }
        #expect(throws: SelectionError.cannotClear(name: "carousel", policy: .clamp)) {
            try selections.clear("carousel")
        }
    }

    @Test func shrinkingTheCountRevalidatesByPolicy() throws {
        try selections.define("clamp", count: 10, policy: .clamp, initialIndex: 8)
        try selections.define("wrap", count: 10, policy: .wrap, initialIndex: 8)
        try selections.define("optional", count: 10, policy: .optional, initialIndex: 8)
        #expect(try selections.setCount(5, for: "clamp").index == 4)
        #expect(try selections.setCount(5, for: "wrap").index == 3)
        #expect(try selections.setCount(5, for: "optional").index == nil)
        for name in ["clamp", "wrap", "optional"] {
            #expect(try selections.setCount(0, for: name).index == nil)
        }
        #expect(try selections.setCount(3, for: "clamp").index == 0)
        #expect(try selections.setCount(3, for: "optional").index == nil)
        let error = #expect(throws: SelectionError.self) {
            try selections.setCount(-1, for: "clamp")
        }
        #expect(error?.description == "The count of 'clamp' cannot be negative (-1)")
    }

    @Test func indexFollowsTheSelectedItem() throws {
        let ids = ["paris", "florence", "amsterdam", "ghana"]
        try selections.define("carousel", count: ids.count, policy: .clamp)
        try selections.select(2, itemID: "amsterdam", in: "carousel")
        let moved = try selections.reconcile(
            "carousel", itemIDs: ["amsterdam", "paris", "florence"])
        #expect(moved.index == 0)
        #expect(moved.itemID == "amsterdam")
        #expect(moved.count == 3)
        let gone = try selections.reconcile("carousel", itemIDs: ["paris"])
        #expect(gone.index == 0)
        #expect(gone.itemID == "paris")

        try selections.define("articles", count: 3, policy: .optional)
        try selections.select(1, itemID: "b", in: "articles")
        #expect(try selections.reconcile("articles", itemIDs: ["a", "c", "d"]).index == nil)

        try selections.define("featured", count: 4, policy: .wrap)
        try selections.select(3, itemID: "d", in: "featured")
        #expect(try selections.reconcile("featured", itemIDs: ["a", "b"]).index == 1)
    }

    @Test func selectionsSurviveReopening() throws {
        let folder = try TemporaryFolder()
        let path = folder.path("prefs.sqlite")
        try SelectionStore(database: try AppDatabase(path: path)).define(
            "carousel", count: 13, policy: .clamp, initialIndex: 2)
        try SelectionStore(database: try AppDatabase(path: path)).next("carousel")
        let reopened = try SelectionStore(database: try AppDatabase(path: path)).selection(
            named: "carousel")
        #expect(reopened?.index == 3)
        #expect(reopened?.policy == .clamp)
    }

    // The reference app: 13 trips, the carousel at 2; translation in points, page width 300.
    static let dragCases: [(current: Int, translation: Double, expected: Int)] = [
        (2, 0, 2), (2, -100, 2), (2, -195, 3), (2, -194.9, 2), (2, -390, 4), (2, 195, 1),
        (2, 390, 0), (2, 5_000, 0), (2, -50_000, 12), (12, -300, 12), (0, 300, 0),
        (2, .nan, 2), (2, .infinity, 2), (2, -1e300, 12),
    ]

    @Test(arguments: dragCases)
    func dragMovesByWholePagesPastTheThreshold(current: Int, translation: Double, expected: Int) {
        #expect(
            CarouselPaging.targetPage(
                currentPage: current, translation: translation, pageWidth: 300, count: 13)
                == expected)
    }

    @Test func dragWithDegenerateInputStaysPut() {
        #expect(
            CarouselPaging.targetPage(currentPage: 2, translation: -500, pageWidth: 0, count: 13)
                == 2)
        #expect(
            CarouselPaging.targetPage(currentPage: 2, translation: -500, pageWidth: 300, count: 0)
                == 0)
        #expect(
            CarouselPaging.targetPage(currentPage: 40, translation: 0, pageWidth: 300, count: 13)
                == 12)
    }
}
