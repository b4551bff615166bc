import Testing

/// A command line as a parameterised case: Swift Testing shows it as the words typed, a
/// long one cut to its start and its length ("kkkkkkkk…" (2000 characters)), so that
/// `swift test` prints a line a person reads, not a 2,000-character key.
struct CommandWords: ExpressibleByArrayLiteral, CustomTestStringConvertible, Sendable {
    var words: [String]

    init(arrayLiteral words: String...) { self.words = words }

    init(_ words: [String]) { self.words = words }

    var testDescription: String {
        var text = "prefs"
        for word in words {
            text += " "
            text +=
                word.count <= 40
                ? word.debugDescription : "\"\(word.prefix(24))…\" (\(word.count) characters)"
        }
        return text
    }
}
