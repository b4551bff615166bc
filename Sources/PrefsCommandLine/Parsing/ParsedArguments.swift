/// What the parser found for one command.
struct ParsedArguments: Sendable {
    /// The command's names from the root, e.g. `["selection", "set"]`.
    var path: [String]
    var positionals: [String] = []
    /// Option values in the order given. A command has a handful of options, so arrays
    /// searched in order beat hash tables here, and they keep start-up free of the
    /// runtime's hashed-collection metadata.
    var values: [(name: String, value: String)] = []
    var flags: [String] = []

    func flag(_ name: String) -> Bool { flags.contains(name) }

    func value(_ name: String) -> String? { values.last(where: { $0.name == name })?.value }

    func repeated(_ name: String) -> [String] {
        values.compactMap { $0.name == name ? $0.value : nil }
    }

    func hasValue(_ name: String) -> Bool { values.contains(where: { $0.name == name }) }

    mutating func setFlag(_ name: String) {
        if !flags.contains(name) { flags.append(name) }
    }

    func positional(_ index: Int) -> String? {
        positionals.indices.contains(index) ? positionals[index] : nil
    }

    /// The last value of an integer option, or nil when absent.
    func integer(_ name: String, in range: ClosedRange<Int> = Int.min...Int.max)
        throws(UsageError) -> Int?
    {
        guard let text = value(name) else { return nil }
        guard let number = Int(text), range.contains(number) else {
            var expected = "an integer"
            if range.lowerBound == 0 && range.upperBound == Int.max {
                expected = "a non-negative integer"
            } else if range.lowerBound == 1 && range.upperBound == Int.max {
                expected = "a positive integer"
            }
            throw UsageError(
                "Invalid value '\(text)' for '--\(name)': expected \(expected)", path: path)
        }
        return number
    }

    /// The last value of an option restricted to a set of choices.
    func choice(_ name: String, from choices: [String]) throws(UsageError) -> String? {
        guard let text = value(name) else { return nil }
        guard choices.contains(text) else {
            throw UsageError(
                "Invalid value '\(text)' for '--\(name)': expected one of "
                    + choices.map { "'\($0)'" }.joined(separator: ", "),
                path: path)
        }
        return text
    }
}
