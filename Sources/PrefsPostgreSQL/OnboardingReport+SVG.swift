extension OnboardingReport {
    /// The funnel as a picture: one row a line of the text report (finished, skipped on each
    /// page, stopped on each page, never started), per group, each a bar whose length is its
    /// count against the largest count, with the label and the count in words beside it.
    ///
    /// It reads without colour: a count known exactly is a filled bar; a count below the
    /// threshold (`<5`) is an outlined, dashed bar as long as the threshold, the most it can
    /// be, with `<5` written beside it. Pages count from 1, as in the text report. Every
    /// text is escaped; the picture is standalone SVG 1.1 (no script, no external file).
    public func svg() -> String {
        struct Row {
            var label: String
            var count: Count?
            var isHeading = false
        }
        var rows: [Row] = []
        for group in groups {
            if let week = group.week { rows.append(Row(label: "week \(week)", isHeading: true)) }
            rows.append(Row(label: "finished", count: group.finished))
            for page in group.skipped.keys.sorted() {
                rows.append(Row(label: "skipped on page \(page + 1)", count: group.skipped[page]))
            }
            if let unknown = group.skippedOnUnknownPage {
                rows.append(Row(label: "skipped on a page not recorded", count: unknown))
            }
            for page in group.stopped.keys.sorted() {
                rows.append(Row(label: "stopped on page \(page + 1)", count: group.stopped[page]))
            }
            rows.append(Row(label: "never started", count: group.neverStarted))
        }
        func reach(_ count: Count?) -> Int {
            switch count {
            case .exactly(let count)?: count
            case .fewerThan(let threshold)?: threshold
            case nil: 0
            }
        }
        let largest = max(1, rows.map { reach($0.count) }.max() ?? 1)
        let labelWidth = 230
        let barWidth = 300
        let rowHeight = 24
        let width = labelWidth + barWidth + 80
        let height = 40 + rows.count * rowHeight + 10
        var svg = """
            <?xml version="1.0" encoding="UTF-8"?>
            <svg xmlns="http://www.w3.org/2000/svg" version="1.1" width="\(width)" \
            height="\(height)" viewBox="0 0 \(width) \(height)" font-family="sans-serif" \
            font-size="13">
            <title>Onboarding: how the walkthrough ended</title>
            <rect x="0" y="0" width="\(width)" height="\(height)" fill="white"/>
            <text x="10" y="24" font-size="15" font-weight="bold">Onboarding: how the \
            walkthrough ended</text>

            """
        for (index, row) in rows.enumerated() {
            let top = 40 + index * rowHeight
            let baseline = top + 16
            let label = Self.escaped(row.label)
            if row.isHeading {
                svg += "<text x=\"10\" y=\"\(baseline)\" font-weight=\"bold\">\(label)</text>\n"
                continue
            }
            let count = Self.escaped(row.count?.description ?? "0")
            let length = reach(row.count) * barWidth / largest
            svg += "<text x=\"20\" y=\"\(baseline)\">\(label)</text>\n"
            switch row.count {
            case .fewerThan?:
                svg += """
                    <rect class="bar below-threshold" data-count="\(count)" x="\(labelWidth)" \
                    y="\(top + 4)" width="\(length)" height="16" fill="white" stroke="black" \
                    stroke-dasharray="4 3"/>

                    """
            default:
                svg += """
                    <rect class="bar" data-count="\(count)" x="\(labelWidth)" y="\(top + 4)" \
                    width="\(length)" height="16" fill="#333333"/>

                    """
            }
            svg += """
                <text class="count" x="\(labelWidth + length + 6)" y="\(baseline)">\
                \(count)</text>

                """
        }
        return svg + "</svg>\n"
    }

    /// Text for an SVG document: the five characters XML reserves, as entities.
    static func escaped(_ text: String) -> String {
        var escaped = ""
        for character in text {
            switch character {
            case "&": escaped += "&amp;"
            case "<": escaped += "&lt;"
            case ">": escaped += "&gt;"
            case "\"": escaped += "&quot;"
            case "'": escaped += "&apos;"
            default: escaped.append(character)
            }
        }
        return escaped
    }
}
