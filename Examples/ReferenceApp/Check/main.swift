// The reference app's model layer, driven on any platform: every screen's state is changed
// here and by another process (this program again, as a widget or the prefs command would),
// and each change must reach the screen's model through Swift's Observation, as it would
// reach a SwiftUI view. Exits 1 on the first screen that misses one. Run:
//     swift run reference-app-check [database]
import Dispatch
import Foundation
import Observation
import PrefsKit
import ReferenceAppModel

/// What the other process does to the file, one step per run.
func otherProcess(step: String, stores: AppStores) throws {
    switch step {
    case "skip-walkthrough":
        try stores.preferences.set(true, for: Walkthrough.hasViewedWalkthroughKey)
    case "walkthrough-page-2":
        try stores.selections.select(2, in: Walkthrough.selectionName)
    case "carousel-to-7":
        try stores.selections.select(7, in: "carousel")
    case "bookmark-kyoto":
        try stores.bookmarks.add(BookmarkDraft(kind: "trip", itemID: "kyoto", title: "Kyoto"))
    case "unbookmark-kyoto":
        _ = try stores.bookmarks.remove(kind: "trip", itemID: "kyoto")
    case "featured-next":
        try stores.selections.next("featured")
    case "open-article-4":
        try stores.selections.select(3, in: "articles")
    case "close-article":
        try stores.selections.clear("articles")
    default:
        throw CheckFailure("no such step: \(step)")
    }
}

struct CheckFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// Runs this program again to take one step on the file, and waits for it.
func runOtherProcess(_ step: String, path: String) throws {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: CommandLine.arguments[0])
    process.arguments = ["--other-process", step, path]
    try process.run()
    process.waitUntilExit()
    guard process.terminationReason == .exit, process.terminationStatus == 0 else {
        throw CheckFailure("the other process failed on \(step) (\(process.terminationStatus))")
    }
}

/// Reads `read` under Observation, lets `change` happen, and waits until Observation says
/// the state changed and `read` returns `expected`.
func expectChange<Value: Equatable>(
    _ screen: String, _ what: String, to expected: Value, read: () -> Value,
    by change: () throws -> Void
) throws {
    let fired = DispatchSemaphore(value: 0)
    let before = withObservationTracking {
        read()
    } onChange: {
        fired.signal()
    }
    guard before != expected else {
        throw CheckFailure("\(screen): \(what) was already \(expected)")
    }
    let start = ContinuousClock.now
    try change()
    guard fired.wait(timeout: .now() + .seconds(10)) == .success else {
        throw CheckFailure("\(screen): \(what) changed but the model was not told")
    }
    // Observation fires before the change is visible (willSet); the value follows.
    let deadline = ContinuousClock.now + .seconds(10)
    var now = read()
    while now != expected && ContinuousClock.now < deadline {
        usleep(1000)
        now = read()
    }
    guard now == expected else {
        throw CheckFailure("\(screen): \(what) reads \(now), expected \(expected)")
    }
    let elapsed = ContinuousClock.now - start
    let ms =
        Double(elapsed.components.attoseconds) / 1e15 + Double(elapsed.components.seconds) * 1000
    print("\(screen): \(what) -> \(shown(expected)) (seen in \(Int(ms.rounded())) ms)")
}

/// A value as a person reads it: an optional's value, or "none".
func shown(_ value: Any) -> String {
    let mirror = Mirror(reflecting: value)
    guard mirror.displayStyle == .optional else { return "\(value)" }
    return mirror.children.first.map { "\($0.value)" } ?? "none"
}

func main() throws {
    let arguments = Array(CommandLine.arguments.dropFirst())
    if arguments.first == "--other-process", arguments.count == 3 {
        try otherProcess(step: arguments[1], stores: AppStores(path: arguments[2]))
        return
    }
    let path: String
    var scratch: URL?
    if let given = arguments.first {
        path = given
    } else {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "prefs-reference-app-\(getpid())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        path = folder.appendingPathComponent("app.sqlite").path
        scratch = folder
    }
    // The scratch folder made here goes when the check ends, passed or not.
    defer { if let scratch { try? FileManager.default.removeItem(at: scratch) } }
    let stores = try AppStores(path: path)
    let walkthrough = WalkthroughScreen(stores: stores)
    let trips = TripsScreen(stores: stores)
    let featured = FeaturedScreen(stores: stores)
    let articles = ArticlesScreen(stores: stores)

    // Screen 1: the walkthrough. This process turns a page; another one jumps to the last
    // page; another one skips it (as `prefs set hasViewedWalkthrough true` would).
    try expectChange(
        "walkthrough", "page", to: 1, read: { walkthrough.page },
        by: {
            walkthrough.primaryButtonTapped()
        })
    try expectChange(
        "walkthrough", "page", to: 2, read: { walkthrough.page },
        by: {
            try runOtherProcess("walkthrough-page-2", path: path)
        })
    guard walkthrough.primaryButtonTitle == "Get Started" else {
        throw CheckFailure("walkthrough: the last page reads \(walkthrough.primaryButtonTitle)")
    }
    try expectChange(
        "walkthrough", "shows", to: false, read: { walkthrough.showsWalkthrough },
        by: {
            try runOtherProcess("skip-walkthrough", path: path)
        })

    // Screen 2: the carousel and its bookmark button.
    try expectChange(
        "trips", "current trip", to: "Paris", read: { trips.currentTrip.name },
        by: {
            trips.swipeEnded(translation: -200, pageWidth: 300)
        })
    try expectChange(
        "trips", "current trip", to: "Kyoto", read: { trips.currentTrip.name },
        by: {
            try runOtherProcess("carousel-to-7", path: path)
        })
    try expectChange(
        "trips", "bookmark button", to: true, read: { trips.isCurrentTripBookmarked },
        by: {
            try runOtherProcess("bookmark-kyoto", path: path)
        })
    try expectChange(
        "trips", "saved trips", to: ["kyoto", "rome"],
        read: {
            trips.savedTrips.map(\.itemID).sorted()
        },
        by: {
            trips.currentTripIndex = 2
            trips.toggleBookmark()
        })
    try expectChange(
        "trips", "saved trips", to: ["rome"],
        read: {
            trips.savedTrips.map(\.itemID)
        },
        by: {
            try runOtherProcess("unbookmark-kyoto", path: path)
        })

    // Screen 3: the featured pager wraps from the last page to the first.
    try expectChange(
        "featured", "page", to: 3, read: { featured.currentPage },
        by: {
            featured.previous()
        })
    try expectChange(
        "featured", "page", to: 0, read: { featured.currentPage },
        by: {
            try runOtherProcess("featured-next", path: path)
        })

    // Screen 4: the articles list opens and closes an article.
    try expectChange(
        "articles", "open article", to: "Article 2",
        read: {
            articles.selectedArticle?.title
        },
        by: {
            articles.open(Catalog.articles[1])
        })
    try expectChange(
        "articles", "open article", to: "Article 4",
        read: {
            articles.selectedArticle?.title
        },
        by: {
            try runOtherProcess("open-article-4", path: path)
        })
    try expectChange(
        "articles", "open article", to: nil, read: { articles.selectedArticle?.title },
        by: {
            try runOtherProcess("close-article", path: path)
        })
    print("reference app: every screen saw this process's and another process's changes")
}

do {
    try main()
} catch {
    FileHandle.standardError.write(Data("reference-app-check: \(error)\n".utf8))
    exit(1)
}
