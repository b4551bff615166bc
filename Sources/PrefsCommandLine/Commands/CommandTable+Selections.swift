import PrefsKit

#if canImport(FoundationEssentials) && !PREFS_FULL_FOUNDATION
    import FoundationEssentials
#else
    import Foundation
#endif

extension CommandTable {
    static let policyNames = SelectionPolicy.allCases.map(\.rawValue)

    static let nameArgument = ArgumentSpec(
        name: "name", help: "The selection's name, such as carousel.")

    static let selection = CommandSpec(
        name: "selection", aliases: ["selections"],
        abstract: "Read and change selected indices of pagers and lists.",
        subcommands: [
            CommandSpec(
                name: "list", aliases: ["ls"], abstract: "List every selection.",
                build: { _ in .selectionList }),
            CommandSpec(
                name: "get",
                abstract: "Print a selection's index ('none' when nothing is selected).",
                arguments: [nameArgument],
                build: { parsed in .selectionGet(name: parsed.positionals[0]) }),
            CommandSpec(
                name: "set",
                abstract: "Select an index, creating the selection when --count is given.",
                discussion: "An index outside 0...count-1 is refused, never clamped.",
                arguments: [
                    nameArgument, ArgumentSpec(name: "index", help: "The index to select, from 0."),
                ],
                options: [
                    OptionSpec(
                        name: "count", kind: .value(name: "n"),
                        help: "The number of items (creates or resizes the selection)."),
                    OptionSpec(
                        name: "policy", kind: .value(name: "policy"),
                        help: "clamp (default), wrap or optional.", completions: policyNames),
                    OptionSpec(
                        name: "item", kind: .value(name: "id"),
                        help: "The identifier of the selected item, to follow it."),
                ],
                build: { parsed in
                    guard let index = Int(parsed.positionals[1]) else {
                        throw UsageError(
                            "Invalid value '\(parsed.positionals[1])' for '<index>': expected an integer",
                            path: parsed.path)
                    }
                    return .selectionSet(
                        name: parsed.positionals[0], index: index,
                        count: try parsed.integer("count", in: 0...Int.max),
                        policy: try parsed.choice("policy", from: policyNames).flatMap(
                            SelectionPolicy.init(rawValue:)),
                        itemID: parsed.value("item"))
                }),
            CommandSpec(
                name: "next",
                abstract: "Select the next item (clamp stays at the end, wrap goes round).",
                arguments: [nameArgument],
                build: { parsed in .selectionNext(name: parsed.positionals[0]) }),
            CommandSpec(
                name: "previous", aliases: ["prev"], abstract: "Select the previous item.",
                arguments: [nameArgument],
                build: { parsed in .selectionPrevious(name: parsed.positionals[0]) }),
            CommandSpec(
                name: "clear", abstract: "Select nothing (optional selections only).",
                arguments: [nameArgument],
                build: { parsed in .selectionClear(name: parsed.positionals[0]) }),
        ])
}
