import Foundation
import PrefsKit
import TestSupport
import Testing

/// Every reader of outside data has budgets: depth, values, bytes and time. Each budget has
/// a seed in the fuzzing corpus (`Tests/Fuzz/Corpus/*/budget-*`) that reaches it; these
/// tests check that each seed ends in its limit's error, and that the command line ends in
/// exit 65 with nothing written, quickly and in little memory.
@Suite struct DecoderBudgetTests {
    let folder: TemporaryFolder

    init() throws {
        folder = try TemporaryFolder()
    }

    func seed(_ target: String, _ name: String) throws -> Data {
        try Data(
            contentsOf: FuzzCorpusTests.corpus.appendingPathComponent(target)
                .appendingPathComponent(name))
    }

    func expectError(
        _ reason: String, sourceLocation: SourceLocation = #_sourceLocation,
        _ body: () throws -> Void
    ) {
        do {
            try body()
            Issue.record("decoded without reaching a limit", sourceLocation: sourceLocation)
        } catch {
            #expect("\(error)".contains(reason), "\(error)", sourceLocation: sourceLocation)
        }
    }

    @Test func sharedObjectsAreChargedForWhatTheyExpandTo() throws {
        // 249 bytes: twelve levels of arrays that each hold the next one 14 times.
        let values = try seed("plist", "budget-values-shared-objects")
        #expect(values.count < 300)
        expectError("more than 5000000 values (the decoding limit)") {
            _ = try PropertyList.decode(values)
        }
        expectError("more than 5000000 values (the decoding limit)") {
            _ = try PreferenceImport(propertyList: values)
        }
        // 3 KB: a 3,000-byte string reached 14^6 times.
        let bytes = try seed("plist", "budget-bytes-shared-objects")
        expectError("MiB of text and data (the decoding limit)") {
            _ = try PropertyList.decode(bytes)
        }
        #expect(try seed("value", "budget-values-shared-objects") == values)
    }

    @Test func sharedObjectsWithinTheBudgetStillDecode() throws {
        // A list that holds one string three times (as plutil writes shared strings).
        var body = Array("bplist00".utf8)
        let objects: [[UInt8]] = [[0xA3, 1, 1, 1], [0x53] + Array("abc".utf8)]
        var offsets: [UInt8] = []
        for object in objects {
            offsets.append(UInt8(body.count))
            body += object
        }
        let table = body.count
        body += offsets + [0, 0, 0, 0, 0, 0, 1, 1]
        for field in [UInt64(objects.count), 0, UInt64(table)] {
            body += withUnsafeBytes(of: field.bigEndian, Array.init)
        }
        #expect(
            try PropertyList.decode(Data(body))
                == .array([.string("abc"), .string("abc"), .string("abc")]))
    }

    @Test func nestingDeeperThanTheLimitIsRefused() throws {
        let json = try seed("json", "budget-depth")
        expectError("nesting deeper than 512") {
            _ = try JSONValue(parsing: Array(json))
        }
        let xml = try seed("plist", "budget-depth-xml")
        expectError("nesting deeper than 512") { _ = try PropertyList.decode(xml) }
    }

    @Test func theCommandLineEndsIn65AndCreatesNothing() throws {
        for (target, name) in [
            ("plist", "budget-values-shared-objects"), ("plist", "budget-bytes-shared-objects"),
            ("plist", "budget-depth-xml"), ("json", "budget-depth"),
        ] {
            let file = folder.path(name)
            try seed(target, name).write(to: URL(fileURLWithPath: file))
            let db = folder.path("\(name).sqlite")
            let result = try Reliability.shell(
                "ulimit -v 2000000; timeout -s KILL 20 \"$PREFS\" --db '\(db)' import '\(file)'")
            #expect(result.status == 65, "\(name): \(result.status) \(result.stderr)")
            #expect(result.stderr.hasPrefix("Error: Malformed import: "), "\(result.stderr)")
            #expect(result.stderr.hasSuffix("; nothing was imported\n"), "\(result.stderr)")
            #expect(!FileManager.default.fileExists(atPath: db), "\(name) created the database")
        }
    }
}
