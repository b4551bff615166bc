/// A value a command line gives as text: a positional argument or an option's value.
///
/// The type says how the text is read and what completion offers; a command reads back the
/// typed value (`parsed[Self.limit]` is an `Int?`), so no command converts text itself.
protocol ArgumentValue: Sendable {
    /// The value the text stands for, or nil when it stands for none.
    init?(argumentText text: String)
    /// What a valid value is, after "expected" in an error ("an integer").
    static var expectation: String { get }
    /// The values completion offers; empty for free text.
    static var choices: [String] { get }
}

extension String: ArgumentValue {
    init?(argumentText text: String) { self = text }
    static var expectation: String { "text" }
    static var choices: [String] { [] }
}

extension Int: ArgumentValue {
    init?(argumentText text: String) { self.init(text) }
    static var expectation: String { "an integer" }
    static var choices: [String] { [] }
}

/// Enumerations named by their raw value: the names are the choices, and an error lists them.
extension ArgumentValue where Self: CaseIterable & RawRepresentable, RawValue == String {
    init?(argumentText text: String) { self.init(rawValue: text) }

    static var choices: [String] { allCases.map(\.rawValue) }

    static var expectation: String {
        "one of " + choices.map { "'\($0)'" }.joined(separator: ", ")
    }
}

/// A positional argument that must be given, read as `Value`.
struct Argument<Value: ArgumentValue>: Sendable {
    let spec: ArgumentSpec

    init(_ name: String, help: String, completesKeys: Bool = false) {
        spec = ArgumentSpec(
            name: name, help: help, completions: Value.choices, completesKeys: completesKeys)
    }
}

/// A positional argument that may be left out.
struct OptionalArgument<Value: ArgumentValue>: Sendable {
    let spec: ArgumentSpec

    init(_ name: String, help: String, completions: [String] = [], completesKeys: Bool = false) {
        spec = ArgumentSpec(
            name: name, help: help, isOptional: true,
            completions: completions.isEmpty ? Value.choices : completions,
            completesKeys: completesKeys)
    }
}

/// The last positional argument, taking every value left (none or more, or one or more).
struct RepeatingArgument<Value: ArgumentValue>: Sendable {
    let spec: ArgumentSpec

    init(
        _ name: String, help: String, isOptional: Bool = false, completions: [String] = [],
        completesKeys: Bool = false
    ) {
        spec = ArgumentSpec(
            name: name, help: help, isOptional: isOptional, isRepeating: true,
            completions: completions.isEmpty ? Value.choices : completions,
            completesKeys: completesKeys)
    }
}

/// An option with a value, given at most once; `isRequired` options must be given.
struct Option<Value: ArgumentValue>: Sendable {
    let spec: OptionSpec

    init(
        _ name: String, short: Character? = nil, value valueName: String, help: String,
        isRequired: Bool = false
    ) {
        spec = OptionSpec(
            name: name, short: short, kind: .value(name: valueName), help: help,
            completions: Value.choices, isRequired: isRequired)
    }
}

extension Option where Value == Int {
    /// An integer option whose values lie in `range` (for example `1...Int.max`).
    init(
        _ name: String, short: Character? = nil, value valueName: String, help: String,
        in range: ClosedRange<Int>, isRequired: Bool = false
    ) {
        spec = OptionSpec(
            name: name, short: short, kind: .value(name: valueName), help: help,
            isRequired: isRequired, range: range)
    }
}

/// An option given any number of times; its values in the order given.
struct RepeatedOption<Value: ArgumentValue>: Sendable {
    let spec: OptionSpec

    init(_ name: String, value valueName: String, help: String) {
        spec = OptionSpec(
            name: name, kind: .repeatedValue(name: valueName), help: help,
            completions: Value.choices)
    }
}

/// An option without a value: set or not.
struct Flag: Sendable {
    let spec: OptionSpec

    init(_ name: String, short: Character? = nil, help: String) {
        spec = OptionSpec(name: name, short: short, kind: .flag, help: help)
    }
}
