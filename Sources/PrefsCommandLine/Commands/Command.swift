import PrefsKit

/// A parsed command, ready to run.
enum Command: Equatable, Sendable {
    case help(path: [String])
    case version
    // Preferences
    case get(key: String, fallback: String? = nil, raw: Bool = false)
    case set(key: String, value: String, type: PreferenceType?)
    case delete(key: String)
    case rename(old: String, new: String, force: Bool)
    case describe(key: String)
    case find(pattern: String, isRegex: Bool, isNullSeparated: Bool = false)
    case list(includeDeclared: Bool, isNullSeparated: Bool = false, namesOnly: Bool = false)
    case reset(force: Bool)
    case watch(keys: [String])
    case history(key: String?, limit: Int)
    case suites(isNullSeparated: Bool = false)
    case declare(
        key: String, type: PreferenceType, defaultValue: String?, description: String?,
        isDeviceLocal: Bool = false)
    case export(format: InterchangeFormat, file: String?)
    case importPreferences(format: InterchangeFormat?, file: String, replace: Bool, force: Bool)
    // Onboarding
    case onboarding(OnboardingAction, pageCount: Int?)
    // Selections
    case selectionList
    case selectionGet(name: String)
    case selectionSet(
        name: String, index: Int, count: Int?, policy: SelectionPolicy?, itemID: String?)
    case selectionNext(name: String)
    case selectionPrevious(name: String)
    case selectionClear(name: String)
    // Bookmarks
    case bookmarkAdd(BookmarkDraft)
    case bookmarkRemove(BookmarkReference)
    case bookmarkToggle(BookmarkDraft)
    case bookmarkList(BookmarkQuery, grouping: BookmarkGrouping?)
    case bookmarkSearch(text: String, limit: Int)
    case bookmarkMove(id: Int64, position: Int)
    case bookmarkImport(format: BookmarkImportDocument.Format?, file: String)
    case bookmarkExport(format: BookmarkFormat, file: String?)
    // Maintenance
    /// Checks the file; `repair` rebuilds an out-of-step search index and makes the files private.
    case doctor(repair: Bool)
    case completion(shell: Shell)
    // Sync
    /// One round with the hub (`--hub`, else the one remembered), or rounds until interrupted.
    case sync(hub: String?, watch: Bool)
    case syncStatus
    case syncConflicts(limit: Int)
    case syncLeave
    case syncRefused(limit: Int)
}

extension Command {
    var isHelp: Bool {
        if case .help = self { return true }
        return false
    }

    /// Whether it is a sync command (whose `--account` is the hub's).
    var isSync: Bool {
        switch self {
        case .sync, .syncStatus, .syncConflicts, .syncLeave, .syncRefused: true
        default: false
        }
    }

    /// The command's name when it has nothing to do with suites (`--suite` is refused there).
    var nameIfSuiteless: String? {
        switch self {
        case .selectionList: "selection list"
        case .selectionGet: "selection get"
        case .selectionSet: "selection set"
        case .selectionNext: "selection next"
        case .selectionPrevious: "selection previous"
        case .selectionClear: "selection clear"
        case .bookmarkAdd: "bookmark add"
        case .bookmarkRemove: "bookmark remove"
        case .bookmarkToggle: "bookmark toggle"
        case .bookmarkList: "bookmark list"
        case .bookmarkSearch: "bookmark search"
        case .bookmarkMove: "bookmark move"
        case .bookmarkImport: "bookmark import"
        case .bookmarkExport: "bookmark export"
        case .doctor: "doctor"
        case .completion: "completion"
        case .sync: "sync"
        case .syncStatus: "sync status"
        case .syncConflicts: "sync conflicts"
        case .syncLeave: "sync leave"
        case .syncRefused: "sync refused"
        default: nil
        }
    }
}
