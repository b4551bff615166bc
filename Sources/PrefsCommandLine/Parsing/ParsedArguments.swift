/// What the parser found for one command.
struct ParsedArguments: Sendable {
    /// The command's names from the root, e.g. `["selection", "set"]`.
    var path: [String]
    var positionals: [String] = []
    var values: [String: [String]] = [:]
    var flags: Set<String> = []

    func flag(_ name: String) -> Bool { flags.contains(name) }

    func value(_ name: String) -> String? { values[name]?.last }

    func repeated(_ name: String) -> [String] { values[name] ?? [] }

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
