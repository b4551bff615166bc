/// How names and values a user typed appear inside error messages.
package enum MessageText {
    /// Text shown inside a message: control characters escaped, long text cut.
    package static func shown(_ text: String) -> String {
        let scalars = text.unicodeScalars
        let shown = escaped(String(String.UnicodeScalarView(scalars.prefix(80))))
        return scalars.count > 80 ? shown + "..." : shown
    }

    /// Text for a terminal, whole: what a terminal would act on instead of showing is
    /// escaped: C0 controls (ESC, BEL, newline, tab...), DEL, C1 controls (U+0080-U+009F,
    /// which some terminals read as ESC sequences), and the bidirectional overrides and
    /// isolates (U+202A-U+202E, U+2066-U+2069) that reorder what follows on the line.
    /// Text without any of them is returned as it is.
    package static func escaped(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: needsEscape) else { return text }
        var result = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\n": result += "\\n"
            case "\t": result += "\\t"
            case "\r": result += "\\r"
            case "\0": result += "\\0"
            default:
                if needsEscape(scalar) {
                    result += "\\u{\(String(scalar.value, radix: 16))}"
                } else {
                    result.unicodeScalars.append(scalar)
                }
            }
        }
        return result
    }

    private static func needsEscape(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0..<0x20, 0x7F...0x9F, 0x202A...0x202E, 0x2066...0x2069: true
        default: false
        }
    }
}
