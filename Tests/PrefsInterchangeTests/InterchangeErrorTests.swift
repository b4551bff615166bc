import Foundation
import Testing

@testable import PrefsInterchange
@testable import PrefsKit

/// Every reader of a file format fails with the one error type, which says where.
@Suite struct InterchangeErrorTests {
    /// The error the read fails with; nil when it does not fail, or fails otherwise.
    func failure(_ read: () throws -> Void) -> InterchangeError? {
        do {
            try read()
            return nil
        } catch let error as InterchangeError {
            return error
        } catch {
            return nil
        }
    }

    @Test func eachReaderSaysWhereTheInputWentWrong() throws {
        let json = failure { _ = try JSONValue(parsing: "{\n  \"a\": tru }") }
        #expect(json?.location == .lineAndColumn(line: 2, column: 8))
        #expect(json?.description == "invalid literal at line 2, column 8" || json?.line == 2)

        let xml = failure {
            _ = try PropertyList.decode(Data("<plist>\n<integer>x</integer></plist>".utf8))
        }
        #expect(xml?.location == .line(2))

        var binary = Array("bplist00".utf8) + [0x10, 0x01]
        binary += [UInt8](repeating: 0, count: 26) + [0, 0, 0, 0, 0, 0, 0, 0xFF]
        let plist = failure { _ = try PropertyList.decode(Data(binary)) }
        #expect(plist != nil)
        if case .byteOffset? = plist?.location {
        } else {
            #expect(plist?.location == nil, "\(String(describing: plist))")
        }

        let html = failure {
            _ = try NetscapeBookmarkFile.document(reading: Array("just text".utf8))
        }
        #expect(html?.location == .line(1))

        let roots = try JSONValue(parsing: "{\"roots\": 1}")
        let chromium = failure { _ = try ChromiumBookmarkFile.document(reading: roots) }
        #expect(chromium?.location == .keyPath("roots"))
        #expect(chromium?.description == "a Chromium Bookmarks file needs an object here at roots")
    }
}
