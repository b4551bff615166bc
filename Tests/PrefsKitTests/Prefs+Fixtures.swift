import Foundation
import PrefsKit

enum Theme: String, PreferenceStorable, CaseIterable {
    case light, dark, system
}

enum Density: Int {
    case compact = 0
    case regular = 1
    case spacious = 2
}

struct WindowLayout: Codable, Equatable, JSONPreference {
    var width: Int
    var height: Int
    var title: String
}

extension Prefs.Keys {
    static let hasViewedWalkthrough = Prefs.Key("hasViewedWalkthrough", default: false)
    static let launchCount = Prefs.Key("launchCount", default: 0)
    static let volume = Prefs.Key("volume", default: 0.5)
    static let nickname = Prefs.Key("nickname", default: "")
    static let homepage = Prefs.Key("homepage", default: URL(string: "https://example.com")!)
    static let lastOpened = Prefs.Key(
        "lastOpened", default: Date(timeIntervalSinceReferenceDate: 0))
    static let avatar = Prefs.Key("avatar", default: Data())
    static let theme = Prefs.Key("theme", default: Theme.system)
    static let density = Prefs.Key("density", default: Density.regular)
    static let recentSearches = Prefs.Key("recentSearches", default: [String]())
    static let counters = Prefs.Key("counters", default: [String: Int]())
    static let layout = Prefs.Key(
        "layout", default: WindowLayout(width: 800, height: 600, title: "Main"))
    static let selectedArticle = Prefs.Key<Int?>("selectedArticleIndex", default: nil)
}
