import Foundation
import PrefsKit

enum Theme: String, PreferenceStorable, CaseIterable {
    case light, dark, system
}

enum Density: Int {
    case compact = 0, regular = 1, spacious = 2
}

struct WindowLayout: Codable, Equatable, JSONPreference {
    var width: Int
    var height: Int
    var title: String
}

extension PreferenceKeys {
    static let hasViewedWalkthrough = PreferenceKey("hasViewedWalkthrough", default: false)
    static let launchCount = PreferenceKey("launchCount", default: 0)
    static let volume = PreferenceKey("volume", default: 0.5)
    static let nickname = PreferenceKey("nickname", default: "")
    static let homepage = PreferenceKey("homepage", default: URL(string: "https://example.com")!)
    static let lastOpened = PreferenceKey("lastOpened", default: Date(timeIntervalSinceReferenceDate: 0))
    static let avatar = PreferenceKey("avatar", default: Data())
    static let theme = PreferenceKey("theme", default: Theme.system)
    static let density = PreferenceKey("density", default: Density.regular)
    static let recentSearches = PreferenceKey("recentSearches", default: [String]())
    static let counters = PreferenceKey("counters", default: [String: Int]())
    static let layout = PreferenceKey(
        "layout", default: WindowLayout(width: 800, height: 600, title: "Main"))
    static let selectedArticle = PreferenceKey<Int?>("selectedArticleIndex", default: nil)
}
