/// A full-text search as the user typed it: words that must all match, each as a whole word
/// or, when typed with a trailing `*`, as a prefix. An engine turns it into its own query
/// syntax; nothing the user types is read as that syntax.
package struct BookmarkSearch: Sendable, Hashable {
    /// One word of the search.
    package struct Term: Sendable, Hashable {
        /// The word, without `*` or `"`.
        package var word: String
        /// Whether the word matches every word it begins (`lond*` matches "London").
        package var isPrefix: Bool
    }

    /// The words, in the order typed.
    package var terms: [Term]

    /// Splits text at white space into words; a word ending in `*` is a prefix.
    ///
    /// - Throws: ``BookmarkError/invalid(_:)`` when no word is left.
    package init(parsing text: String) throws(BookmarkError) {
        terms = []
        for piece in text.split(whereSeparator: \.isWhitespace) {
            let word = piece.filter { $0 != "*" && $0 != "\"" }
            guard !word.isEmpty else { continue }
            terms.append(Term(word: String(word), isPrefix: piece.hasSuffix("*")))
        }
        guard !terms.isEmpty else { throw .invalid("The search text is empty") }
    }
}
