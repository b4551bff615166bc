import Foundation
import Testing

@testable import PrefsPostgreSQL

#if canImport(FoundationXML)
    import FoundationXML
#endif

/// The onboarding funnel as SVG (`OnboardingReport.svg()`), read back as XML: bars as long
/// as their counts, counts below the threshold drawn apart, every label there, and nothing
/// past the picture's edges.
struct OnboardingFunnelPictureTests {
    /// The picture's elements, as the XML parser reads them.
    final class Elements: NSObject, XMLParserDelegate {
        var items: [(name: String, attributes: [String: String], text: String)] = []
        /// The elements open now, innermost last: text belongs to the innermost.
        var open: [Int] = []

        func parser(
            _ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?,
            qualifiedName qName: String?, attributes attributeDict: [String: String] = [:]
        ) {
            items.append((elementName, attributeDict, ""))
            open.append(items.count - 1)
        }

        func parser(
            _ parser: XMLParser, didEndElement elementName: String, namespaceURI: String?,
            qualifiedName qName: String?
        ) {
            _ = open.popLast()
        }

        func parser(_ parser: XMLParser, foundCharacters string: String) {
            guard let innermost = open.last else { return }
            items[innermost].text += string
        }
    }

    static let report = OnboardingReport(
        groups: [
            OnboardingReport.Group(
                week: "2026-W49", finished: .exactly(40),
                skipped: [0: .exactly(12), 1: .fewerThan(5)], stopped: [2: .exactly(20)],
                neverStarted: .exactly(8), skippedOnUnknownPage: nil),
            OnboardingReport.Group(
                week: "2026-W50", finished: .exactly(10), skipped: [:], stopped: [:],
                neverStarted: nil, skippedOnUnknownPage: .fewerThan(5)),
        ], threshold: 5)

    func parsed(_ svg: String) throws -> [(
        name: String, attributes: [String: String], text: String
    )] {
        let parser = XMLParser(data: Data(svg.utf8))
        let elements = Elements()
        parser.delegate = elements
        #expect(parser.parse(), "not well-formed: \(String(describing: parser.parserError))")
        return elements.items
    }

    @Test func barsAreAsLongAsTheirCountsAndNothingIsClipped() throws {
        let items = try parsed(Self.report.svg())
        let root = try #require(items.first { $0.name == "svg" })
        let width = try #require(root.attributes["width"].flatMap(Double.init))
        let height = try #require(root.attributes["height"].flatMap(Double.init))
        let bars = items.filter { $0.attributes["class"]?.hasPrefix("bar") == true }
        // One bar a line: 5 in the first week, 3 in the second (never started is 0).
        #expect(bars.count == 8)
        var perAccount: Set<Double> = []
        for bar in bars {
            let length = try #require(bar.attributes["width"].flatMap(Double.init))
            let count = try #require(bar.attributes["data-count"])
            if count.hasPrefix("<") {
                // The most it can be: as long as the threshold, outlined and dashed.
                #expect(bar.attributes["class"] == "bar below-threshold")
                #expect(bar.attributes["stroke-dasharray"] != nil)
                #expect(bar.attributes["fill"] == "white")
                perAccount.insert(length / 5)
            } else {
                let accounts = try #require(Double(count))
                #expect(bar.attributes["fill"] != "white")
                if accounts > 0 {
                    perAccount.insert(length / accounts)
                } else {
                    #expect(length == 0)
                }
            }
            let right = try #require(bar.attributes["x"].flatMap(Double.init)) + length
            #expect(right <= width)
        }
        // Every bar has the same length per account (integer pixels: within one).
        #expect((perAccount.max() ?? 0) - (perAccount.min() ?? 0) < 1.0 / 5 + 0.01, "\(perAccount)")
        let texts = items.filter { $0.name == "text" }
        for label in [
            "week 2026-W49", "finished", "skipped on page 1", "skipped on page 2",
            "stopped on page 3", "never started", "week 2026-W50",
            "skipped on a page not recorded",
        ] {
            #expect(texts.contains { $0.text == label }, "no label \(label)")
        }
        #expect(texts.filter { $0.text == "<5" }.count == 2)
        for text in texts {
            // At most 8.5 pixels a character at 13 pixels (sans-serif digits and letters are
            // narrower): the text ends inside the picture.
            let x = try #require(text.attributes["x"].flatMap(Double.init))
            let y = try #require(text.attributes["y"].flatMap(Double.init))
            #expect(x + 8.5 * Double(text.text.count) <= width, "\(text.text) is clipped")
            #expect(y <= height && y >= 0)
        }
    }

    @Test func textIsEscapedForXML() {
        #expect(
            OnboardingReport.Count.fewerThan(5).description == "<5"
                && Self.report.svg().contains("data-count=\"&lt;5\""))
        let odd = OnboardingReport(
            groups: [OnboardingReport.Group(week: "<script>&\"'", finished: .exactly(1))],
            threshold: 5)
        #expect(odd.svg().contains("week &lt;script&gt;&amp;&quot;&apos;"))
        #expect(!odd.svg().contains("<script>"))
    }
}
