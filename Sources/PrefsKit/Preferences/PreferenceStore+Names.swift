extension PreferenceStore {
    /// The longest key or suite name, in UTF-8 bytes.
    public static let maximumNameLength = 1024

    /// Checks a key against the rules the library and the `prefs` command share: not
    /// empty, at most ``maximumNameLength`` bytes of UTF-8, no NUL or newline.
    ///
    /// - Throws: ``PreferenceError/invalidKey(_:reason:)`` naming the broken rule.
    public static func validate(key: String) throws(PreferenceError) {
        if let reason = brokenRule(of: key, named: "key") { throw .invalidKey(key, reason: reason) }
    }

    /// Checks a suite name against the same rules as a key.
    ///
    /// - Throws: ``PreferenceError/invalidSuite(_:reason:)`` naming the broken rule.
    public static func validate(suite: String) throws(PreferenceError) {
        if let reason = brokenRule(of: suite, named: "suite name") {
            throw .invalidSuite(suite, reason: reason)
        }
    }

    private static func brokenRule(of name: String, named noun: String) -> String? {
        if name.isEmpty { return "The \(noun) cannot be empty" }
        let length = name.utf8.count
        if length > maximumNameLength {
            return
                "The \(noun) is \(length) bytes long; \(noun)s are at most \(maximumNameLength) bytes"
        }
        // One pass over the bytes (a native string's, in place).
        var text = name
        if text.withUTF8({ $0.contains { $0 == 0 || $0 == UInt8(ascii: "\n") } }) {
            return "The \(noun) '\(MessageText.shown(name))' contains a NUL or newline character"
        }
        return nil
    }
}
