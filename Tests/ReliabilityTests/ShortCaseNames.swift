import Testing

/// A command line as a parameterised case shows it: the words, with a long one cut to its
/// start and its length ("kkkkkkkk… (2000 characters)"), so that `swift test` prints a line
/// per case that a person reads, not a 2,000-character key.
extension Array: @retroactive CustomTestStringConvertible where Element == String {
    public var testDescription: String {
        map { word in
            word.count <= 40
                ? word.debugDescription : "\"\(word.prefix(24))…\" (\(word.count) characters)"
        }
        .joined(separator: " ")
    }
}
