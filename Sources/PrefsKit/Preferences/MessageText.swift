/// How names and values a user typed appear inside error messages.
package enum MessageText {
    /// Text shown inside a message: control characters escaped, long text cut.
    package static func shown(_ text: String) -> String {
        var result = ""
        for scalar in text.unicodeScalars.prefix(80) {
            switch scalar {
            case "\n": result += "\\n"
            case "\t": result += "\\t"
            case "\0": result += "\\0"
            default:
                if scalar.value < 0x20 || scalar.value == 0x7F {
                    result += "\\u{\(String(scalar.value, radix: 16))}"
                } else {
                    result.unicodeScalars.append(scalar)
                }
            }
        }
        return text.unicodeScalars.count > 80 ? result + "..." : result
    }
}
