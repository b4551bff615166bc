import Foundation
import TestSupport
import Testing

/// What an app pays for by the products it links: one that links PrefsKit (and
/// PrefsInterchange) alone carries no sync client, no wire types and no server code. The
/// package's own such programs, the tour and the reference app's check, are read with nm.
@Suite struct ProductLinkageTests {
    static let nm = "/usr/bin/nm"

    /// A program built beside the `prefs` executable.
    static func built(_ name: String) -> String {
        prefsExecutable().deletingLastPathComponent().appendingPathComponent(name).path
    }

    @Test(
        .enabled(if: FileManager.default.isExecutableFile(atPath: nm), "nm (binutils) is missing"),
        arguments: ["tour", "reference-app-check"])
    func anAppThatLinksPrefsKitAloneCarriesNoSync(program: String) throws {
        let path = Self.built(program)
        try #require(FileManager.default.isExecutableFile(atPath: path), "\(path) is not built")
        let symbols = try runProcess(URL(fileURLWithPath: Self.nm), ["--defined-only", path])
        #expect(symbols.status == 0, "\(symbols.stderr)")
        #expect(symbols.stdout.contains("8PrefsKit"), "nm read no PrefsKit symbol")
        // Swift's mangled names carry the module's and the type's names with their lengths.
        for sign in [
            "9PrefsSync", "10DeviceSync", "11HTTPSyncHub", "8SyncWire", "15PrefsSyncServer",
        ] {
            #expect(!symbols.stdout.contains(sign), "\(program) carries \(sign)")
        }
    }
}
