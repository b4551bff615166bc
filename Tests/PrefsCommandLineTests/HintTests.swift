import Foundation
import TestSupport
import Testing

/// Mistakes that get pointed to what was meant: exact stderr and exit code.
@Suite struct HintTests {
    @Test(arguments: [
        (["help", "lsit"], "Error: Unknown command 'lsit'. Did you mean 'prefs help list'?\n"),
        (["help", "bookmark", "lsit"], "Error: Unknown command 'bookmark lsit'. Did you mean 'prefs help bookmark list'?\n"),
        (["help", "zzzzzz"], "Error: Unknown command 'zzzzzz'; see 'prefs --help'\n"),
        (
            ["reset", "volume"],
            "Error: Unexpected argument 'volume'; reset takes no key (it removes every preference of the suite);"
                + " to remove one key, use 'prefs delete volume'\nUsage: prefs reset [--force]\n"
                + "  See 'prefs reset --help' for more information.\n"
        ),
    ])
    func mistakesNameWhatWasMeant(arguments: [String], stderr: String) throws {
        let folder = try TemporaryFolder()
        let result = try runPrefs(["--db", folder.path("prefs.sqlite")] + arguments)
        #expect(result.status == 64)
        #expect(result.stdout == "")
        #expect(result.stderr == stderr)
    }
}
