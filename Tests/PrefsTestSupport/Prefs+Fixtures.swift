import Foundation
import PrefsKit

package enum Theme: String, PreferenceStorable, CaseIterable {
    case light, dark, system
}

package enum Density: Int {
    case compact = 0
    case regular = 1
    case spacious = 2
}

package struct WindowLayout: Codable, Equatable, JSONPreference {
    package var width: Int
    package var height: Int
    package var title: String

    package init(width: Int, height: Int, title: String) {
        self.width = width
        self.height = height
        self.title = title
    }
}

extension Prefs.Keys {
    package static let hasViewedWalkthrough = Prefs.Key("hasViewedWalkthrough", default: false)
    package static let launchCount = Prefs.Key("launchCount", default: 0)
    package static let volume = Prefs.Key("volume", default: 0.5)
    package static let nickname = Prefs.Key("nickname", default: "")
    package static let homepage = Prefs.Key(
        "homepage", default: URL(string: "https://example.com")!)
    package static let lastOpened = Prefs.Key(
        "lastOpened", default: Date(timeIntervalSinceReferenceDate: 0))
    package static let avatar = Prefs.Key("avatar", default: Data())
    package static let theme = Prefs.Key("theme", default: Theme.system)
    package static let density = Prefs.Key("density", default: Density.regular)
    package static let recentSearches = Prefs.Key("recentSearches", default: [String]())
    package static let counters = Prefs.Key("counters", default: [String: Int]())
    package static let layout = Prefs.Key(
        "layout", default: WindowLayout(width: 800, height: 600, title: "Main"))
    package static let selectedArticle = Prefs.Key<Int?>("selectedArticleIndex", default: nil)
}
