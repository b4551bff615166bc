import Foundation
import TestSupport
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

    /// What a browser measures of the picture: the box of each bar and text, in the
    /// picture's pixels, after layout with the machine's real fonts.
    struct Measured: Decodable {
        struct Item: Decodable {
            var text: String?
            var count: String?
            var role: String?
            /// x, y, width, height.
            var box: [Double]
        }
        var width: Double
        var height: Double
        var bars: [Item]
        var texts: [Item]
    }

    /// The page that shows the picture and writes what Chromium measured of it into the
    /// document, for `--dump-dom` to print.
    static func measuringPage(_ svg: String) -> String {
        let picture = svg.split(separator: "\n", maxSplits: 1).last.map(String.init) ?? svg
        return """
            <!DOCTYPE html>
            <html><head><meta charset="utf-8"></head><body style="margin:0">
            \(picture)
            <script>
            const svg = document.querySelector('svg');
            const origin = svg.getBoundingClientRect();
            const box = (e) => { const b = e.getBoundingClientRect();
                return [b.left - origin.left, b.top - origin.top, b.width, b.height]; };
            document.body.setAttribute('data-measured', JSON.stringify({
                width: svg.width.baseVal.value, height: svg.height.baseVal.value,
                bars: [...svg.querySelectorAll('rect.bar')].map((e) =>
                    ({count: e.getAttribute('data-count'), box: box(e)})),
                texts: [...svg.querySelectorAll('text')].map((e) =>
                    ({text: e.textContent, role: e.getAttribute('class'), box: box(e)}))}));
            </script>
            </body></html>
            """
    }

    /// The picture as a real browser draws it (headless Chromium from Debian, issue 64):
    /// every bar as long as its count (a count below the threshold as long as the
    /// threshold), every label there, no label running into the bars, no count into its
    /// bar, and nothing past the picture's edges, measured with the fonts the machine has.
    @Test(.enabled(if: Installed.chromium, "Chromium is not installed (Debian's 'chromium')"))
    func chromiumDrawsBarsAsLongAsTheirCountsAndEveryLabelInside() throws {
        let folder = try TemporaryFolder()
        let page = folder.path("funnel.html")
        try Self.measuringPage(Self.report.svg()).write(
            toFile: page, atomically: true, encoding: .utf8)
        // Its profile and caches in the test's folder: nothing is written to $HOME.
        let result = try runProcess(
            URL(fileURLWithPath: "/usr/bin/timeout"),
            [
                "-k", "5", "60", "/usr/bin/chromium", "--headless", "--no-sandbox",
                "--disable-gpu", "--user-data-dir=\(folder.path("profile"))",
                "--dump-dom", URL(fileURLWithPath: page).absoluteString,
            ],
            environment: [
                "PATH": "/usr/bin:/bin", "HOME": folder.url.path,
                "XDG_CONFIG_HOME": folder.path("config"), "XDG_CACHE_HOME": folder.path("cache"),
            ])
        #expect(result.status == 0, "\(result.stderr.suffix(500))")
        let attribute = try #require(
            result.stdout.firstMatch(of: /data-measured="([^"]*)"/)?.1,
            "\(result.stdout.prefix(500))")
        let json = attribute.replacingOccurrences(of: "&quot;", with: "\"")
            .replacingOccurrences(of: "&lt;", with: "<").replacingOccurrences(of: "&gt;", with: ">")
            .replacingOccurrences(of: "&amp;", with: "&")
        let measured = try JSONDecoder().decode(Measured.self, from: Data(json.utf8))
        #expect(measured.bars.count == 8)
        var perAccount: [Double] = []
        for bar in measured.bars {
            let count = try #require(bar.count)
            let accounts = count.hasPrefix("<") ? 5 : try #require(Double(count))
            if accounts > 0 { perAccount.append(bar.box[2] / accounts) }
            #expect(bar.box[2] > 0 || accounts == 0, "a bar of \(count) is not drawn")
        }
        // The same length per account for every bar (whole pixels: within one pixel).
        #expect(
            (perAccount.max() ?? 0) - (perAccount.min() ?? 0) <= 1.0 / 5 + 0.01, "\(perAccount)")
        let barsStart = measured.bars.map { $0.box[0] }.min() ?? 0
        for label in [
            "Onboarding: how the walkthrough ended", "week 2026-W49", "finished",
            "skipped on page 1", "skipped on page 2", "stopped on page 3", "never started",
            "week 2026-W50", "skipped on a page not recorded",
        ] {
            let drawn = measured.texts.first { $0.text == label }
            #expect((drawn?.box[2] ?? 0) > 0, "no label \(label)")
        }
        for text in measured.texts {
            let (x, y, width, height) = (text.box[0], text.box[1], text.box[2], text.box[3])
            let name = text.text ?? ""
            #expect(x >= 0 && y >= 0, "\(name) starts outside")
            #expect(
                x + width <= measured.width && y + height <= measured.height,
                "\(name) is clipped: \(text.box)")
            if text.role == nil, name.hasPrefix("week") || !name.hasPrefix("Onboarding") {
                #expect(x + width <= barsStart, "\(name) runs into the bars: \(text.box)")
            }
        }
        // Each count is written after its bar's end.
        let counts = measured.texts.filter { $0.role == "count" }
        #expect(counts.count == measured.bars.count)
        for (bar, count) in zip(measured.bars, counts) {
            #expect(count.box[0] >= bar.box[0] + bar.box[2], "\(count.text ?? "") overlaps its bar")
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
