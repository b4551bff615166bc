/// The character references of XML and HTML: `&amp;`, `&#233;`, `&#xE9;`...
package enum CharacterReference {
    /// The text a reference stands for, given what lies between `&` and `;`.
    ///
    /// - Parameter allowsHTMLNames: Also read `nbsp`, which HTML has and XML lacks.
    /// - Returns: nil for an unknown name or an invalid code point.
    package static func text(for name: String, allowsHTMLNames: Bool = false) -> String? {
        switch name {
        case "amp": return "&"
        case "lt": return "<"
        case "gt": return ">"
        case "quot": return "\""
        case "apos": return "'"
        case "nbsp" where allowsHTMLNames: return "\u{A0}"
        default:
            var code: UInt32?
            if name.hasPrefix("#x") || name.hasPrefix("#X") {
                code = UInt32(name.dropFirst(2), radix: 16)
            } else if name.hasPrefix("#") {
                code = UInt32(name.dropFirst())
            }
            return code.flatMap(Unicode.Scalar.init).map { String(Character($0)) }
        }
    }
}
