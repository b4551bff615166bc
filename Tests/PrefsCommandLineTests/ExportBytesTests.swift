import Foundation
import PrefsKit
import TestSupport
import Testing

/// Exports to stdout are the exact bytes of an export to a file, whatever stdout is.
@Suite struct ExportBytesTests {
    let folder: TemporaryFolder
    let db: String

    init() throws {
        folder = try TemporaryFolder()
        db = folder.path("prefs.sqlite")
        let store = PreferenceStore(database: try AppDatabase(path: db))
        // Values whose encodings have bytes of 0x80 and above: non-ASCII text, data, a date.
        try store.setValue(.string("héllo ✓ 日本"), forKey: "greeting")
        try store.setValue(.data(Data([0x00, 0x80, 0xFF, 0xFE])), forKey: "blob")
        try store.setValue(.double(-1234.5678), forKey: "volume")
        try store.setValue(.int(-300), forKey: "count")
        try store.setValue(
            .date(Date(timeIntervalSinceReferenceDate: 1_000_000)), forKey: "when")
    }

    @Test(arguments: ["binary-plist", "plist", "json"])
    func stdoutThroughAPipeIsByteIdenticalToAFile(format: String) throws {
        let prefs = prefsExecutable().path
        let file = folder.path("export.\(format)")
        let piped = folder.path("piped.\(format)")
        let redirected = folder.path("redirected.\(format)")
        let script = """
            set -e
            "$PREFS" --db "$DB" export --format \(format) "$FILE"
            "$PREFS" --db "$DB" export --format \(format) | cat > "$PIPED"
            "$PREFS" --db "$DB" export --format \(format) > "$REDIRECTED"
            cmp "$FILE" "$PIPED"
            cmp "$FILE" "$REDIRECTED"
            """
        let result = try runProcess(
            URL(fileURLWithPath: "/bin/bash"), ["-c", script],
            environment: [
                "PREFS": prefs, "DB": db, "FILE": file, "PIPED": piped, "REDIRECTED": redirected,
            ])
        #expect(result.status == 0, "\(result.stderr)")
        let bytes = try Data(contentsOf: URL(fileURLWithPath: piped))
        if format == "binary-plist" {
            #expect(bytes.starts(with: Array("bplist00".utf8)))
            // Another reader agrees, when there is one: Python's plistlib.
            if FileManager.default.isExecutableFile(atPath: "/usr/bin/python3") {
                let check = try runProcess(
                    URL(fileURLWithPath: "/usr/bin/python3"),
                    [
                        "-c",
                        "import plistlib,sys; print(plistlib.load(open(sys.argv[1],'rb'))['greeting'])",
                        piped,
                    ])
                #expect(check.status == 0, "\(check.stderr)")
                #expect(check.stdout == "héllo ✓ 日本\n")
            }
        }
        // And it imports back into an empty database with every value.
        let other = folder.path("other-\(format).sqlite")
        let imported = try runPrefs(["--db", other, "import", "--format", format, piped])
        #expect(imported.status == 0, "\(imported.stderr)")
        let store = PreferenceStore(database: try AppDatabase(path: other))
        #expect(try store.storedValue(forKey: "greeting") == .string("héllo ✓ 日本"))
        #expect(try store.storedValue(forKey: "blob") == .data(Data([0x00, 0x80, 0xFF, 0xFE])))
        #expect(try store.storedValue(forKey: "count") == .int(-300))
    }
}
