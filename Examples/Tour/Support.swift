// What the README's tour takes from the app around it: the theme enum, the screens it would
// show, the items of the carousel and lists, and files to import. The tour itself is
// main.swift, the README's code as it is.
import Foundation
import PrefsKit

enum Theme: String, PreferenceStorable {
    case light, dark, system
}

func showWalkthrough() {
    print("showing the walkthrough")
}

let trips = (1...13).map { "trip-\($0)" }
let featured = ["endgame", "infinity-war", "black-panther", "iron-man"]
let articles = (1...5).map { "article-\($0)" }
let newIDs = ["article-5", "article-1", "article-2"]

/// A scratch folder for the files the tour imports, removed when the tour ends.
let scratch: URL = {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
        "prefs-tour-\(getpid())")
    try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    atexit { removeScratch() }
    return folder
}()

func removeScratch() {
    try? FileManager.default.removeItem(at: scratch)
}

/// A property list as macOS's `defaults export` writes it (XML).
let plistURL: URL = {
    let url = scratch.appendingPathComponent("defaults.plist")
    let text = """
        <?xml version="1.0" encoding="UTF-8"?>
        <plist version="1.0"><dict><key>launchCount</key><integer>3</integer></dict></plist>
        """
    try? Data(text.utf8).write(to: url)
    return url
}()

/// A browser's bookmark export (Netscape HTML).
let path: String = {
    let url = scratch.appendingPathComponent("bookmarks.html")
    let text = """
        <!DOCTYPE NETSCAPE-Bookmark-file-1>
        <DL><p>
            <DT><H3>Dev</H3>
            <DL><p>
                <DT><A HREF="https://swift.org/">Swift</A>
            </DL><p>
        </DL><p>
        """
    try? Data(text.utf8).write(to: url)
    return url.path
}()

let bytes = Array((try? Data(contentsOf: URL(fileURLWithPath: path))) ?? Data())
