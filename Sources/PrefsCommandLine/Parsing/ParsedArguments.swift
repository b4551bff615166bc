/// What the parser found for one command; a command reads its typed values from it with the
/// declarations it was parsed by (`parsed[Self.key]`).
struct ParsedArguments: Sendable {
    /// The command's names from the root, e.g. `["selection", "set"]`.
    var path: [String]
    var positionals: [String] = []
    /// Option values in the order given. A command has a handful of options, so arrays
    /// searched in order beat hash tables here, and they keep start-up free of the
    /// runtime's hashed-collection metadata.
    var values: [(name: String, value: String)] = []
    var flags: [String] = []
    /// The names of the command's positional arguments, in order.
    var argumentNames: [String] = []

    func flag(_ name: String) -> Bool { flags.contains(name) }

    func value(_ name: String) -> String? { values.last(where: { $0.name == name })?.value }

    func hasValue(_ name: String) -> Bool { values.contains(where: { $0.name == name }) }

    mutating func setFlag(_ name: String) {
        if !flags.contains(name) { flags.append(name) }
    }

    // MARK: - Typed values

    subscript(flag: Flag) -> Bool { self.flag(flag.spec.name) }

    subscript<Value>(option: Option<Value>) -> Value? {
        get throws(UsageError) {
            guard let text = value(option.spec.name) else { return nil }
            return try read(text, as: Value.self, label: "--\(option.spec.name)", option.spec.range)
        }
    }

    subscript<Value>(option: RepeatedOption<Value>) -> [Value] {
        get throws(UsageError) {
            var result: [Value] = []
            for (name, text) in values where name == option.spec.name {
                result.append(try read(text, as: Value.self, label: "--\(name)", nil))
            }
            return result
        }
    }

    subscript<Value>(argument: Argument<Value>) -> Value {
        get throws(UsageError) {
            guard let text = positional(named: argument.spec.name) else {
                throw UsageError(
                    "Missing expected argument '<\(argument.spec.name)>'", path: path)
            }
            return try read(text, as: Value.self, label: "<\(argument.spec.name)>", nil)
        }
    }

    subscript<Value>(argument: OptionalArgument<Value>) -> Value? {
        get throws(UsageError) {
            guard let text = positional(named: argument.spec.name) else { return nil }
            return try read(text, as: Value.self, label: "<\(argument.spec.name)>", nil)
        }
    }

    subscript<Value>(argument: RepeatingArgument<Value>) -> [Value] {
        get throws(UsageError) {
            guard let index = argumentNames.firstIndex(of: argument.spec.name),
                index < positionals.count
            else { return [] }
            var result: [Value] = []
            for text in positionals[index...] {
                result.append(
                    try read(text, as: Value.self, label: "<\(argument.spec.name)>", nil))
            }
            return result
        }
    }

    private func positional(named name: String) -> String? {
        guard let index = argumentNames.firstIndex(of: name), index < positionals.count else {
            return nil
        }
        return positionals[index]
    }

    private func read<Value: ArgumentValue>(
        _ text: String, as type: Value.Type, label: String, _ range: ClosedRange<Int>?
    ) throws(UsageError) -> Value {
        if let value = Value(argumentText: text),
            range.map({ range in (value as? Int).map(range.contains) ?? true }) ?? true
        {
            return value
        }
        // The expectation is made only for the message (the choices are joined).
        var expected = Value.expectation
        if let range {
            if range.lowerBound == 0 && range.upperBound == Int.max {
                expected = "a non-negative integer"
            } else if range.lowerBound == 1 && range.upperBound == Int.max {
                expected = "a positive integer"
            }
        }
        throw UsageError("Invalid value '\(text)' for '\(label)': expected \(expected)", path: path)
    }
}
