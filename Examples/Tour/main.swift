import Foundation
import Observation
import PrefsInterchange
import PrefsKit

// One database per file and process, injected where it is needed ($PREFS_DB, else the
// app's own file in the user data folder; name the app once at launch).
try PreferenceStore.configure(appIdentifier: "com.example.tour")
let database = try AppDatabase(path: DatabaseLocation.defaultPath())
let store = PreferenceStore(database: database)  // suite "standard"

// Typed keys, declared once.
extension Prefs.Keys {
    static let hasViewedWalkthrough = Prefs.Key("hasViewedWalkthrough", default: false)
    static let theme = Prefs.Key("theme", default: Theme.system)  // String enum
}

if !store[.hasViewedWalkthrough] {  // the default is returned, never written
    showWalkthrough()
}
try store.set(true, for: .hasViewedWalkthrough)  // durable when it returns

// @AppStorage's shape, on PreferenceStore.standard: the default database, opened on first
// use (assign another store for tests or an app group). A setter cannot throw: failures go
// to the store's errorHandler. `store:` picks another store.
@Observable final class OnboardingModel {
    @ObservationIgnored @Preference("hasViewedWalkthrough") var hasViewedWalkthrough = false
    @ObservationIgnored @Preference("theme") var theme: Theme?  // nil until set; nil removes it
}
store[.hasViewedWalkthrough] = true  // the subscript is settable too

// Swift's Observation, as SwiftUI uses it: whoever read a key hears of its next change, made
// by this process, another one or the prefs command (the model's properties work the same).
withObservationTracking {
    _ = store[.hasViewedWalkthrough]
} onChange: {
    print("hasViewedWalkthrough changed")
}
store[.hasViewedWalkthrough] = false  // prints "hasViewedWalkthrough changed"

// Several keys, one transaction: all or nothing.
try store.transaction { edit in
    try edit.set(true, for: .hasViewedWalkthrough)
    try edit.setValue(.int(0), forKey: "currentPage")
}

// Changes from any process, the prefs command included: the current value first.
for await seen in store.values(for: .hasViewedWalkthrough) {
    print("hasViewedWalkthrough:", seen)
    break  // an app keeps listening; the tour goes on
}

// The UserDefaults API, with Foundation's coercions ("YES" reads as true, "1234" as 1234).
let defaults = PreferenceStore(database: database, suite: "group.example")
defaults.register(defaults: ["launchCount": 0])
defaults.set(defaults.integer(forKey: "launchCount") + 1, forKey: "launchCount")

// Declarations (for the CLI), history, import and export.
try store.declare(Prefs.Keys.hasViewedWalkthrough)
let recent = try store.history(forKey: "hasViewedWalkthrough", limit: 10)
let json = try store.exportJSON()
try store.importPropertyList(Data(contentsOf: plistURL))  // XML or binary, as macOS writes
print("history:", recent.count, "changes; export:", json.utf8.count, "bytes")

// Which card of the carousel, which page of the pager, which article is open.
let selections = SelectionStore(database: database)
try selections.define("carousel", count: trips.count, policy: .clamp, initialIndex: 2)
try selections.define("featured", count: featured.count, policy: .wrap)  // last -> first
try selections.define("articles", count: articles.count, policy: .optional)  // nil = none open
try selections.next("carousel")  // stays at 12 at the end
try selections.select(4, itemID: "article-5", in: "articles")
do {
    try selections.select(40, in: "carousel")  // throws: out of range (valid: 0...12)
} catch {
    print(error)
}
try selections.reconcile("articles", itemIDs: newIDs)  // the index follows the item
let page = CarouselPaging.targetPage(currentPage: 2, translation: -200, pageWidth: 300, count: 13)
print("carousel page after a swipe:", page)

// The onboarding flow: Next, Next, Get Started (or Skip) sets hasViewedWalkthrough.
let walkthrough = try Walkthrough(preferences: store, selections: selections, pageCount: 3)
if walkthrough.shouldShow { /* present it; walkthrough.primaryButtonTitle, .showsSkip */  }
try walkthrough.next()

// Bookmarks: identity is (kind, itemID); ids are never reused; positions stay dense.
let bookmarks = BookmarkStore(database: database)
try bookmarks.toggle(BookmarkDraft(kind: "trip", itemID: "london", title: "London"))
try bookmarks.add(
    BookmarkDraft(
        kind: "movie", itemID: "6", title: "Avengers: Endgame",
        category: "Marvel", tags: ["featured"]))
let marvel = try bookmarks.list(BookmarkQuery(kind: "movie", category: "Marvel", sort: .title))
let groups = try bookmarks.groupedByCategory(BookmarkQuery(kind: "movie"))
let hits = try bookmarks.search("aveng*")  // FTS5 over title, category, tags, note, url
try bookmarks.move(id: hits[0].id, to: 0)
let html = try bookmarks.exportHTML()  // Netscape format; KIND, ITEM_ID and
// POSITION attributes keep identity and order
try bookmarks.importJSON(try bookmarks.exportJSON())  // ids, positions and times kept
let summary = try bookmarks.importFile(atPath: path, bytes: bytes)  // any browser's file
print(summary)  // Added 1, updated 0, ... skipped 0
let dev = try bookmarks.list(BookmarkQuery(folder: ["Dev"]))  // and its subfolders
print(
    marvel.count, "Marvel movies,", groups.count, "categories,", dev.count, "in Dev,",
    html.utf8.count, "bytes of HTML")
