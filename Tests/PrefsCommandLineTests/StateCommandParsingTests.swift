import Foundation
import PrefsKit
import Testing

@testable import PrefsCommandLine

@Suite struct StateCommandParsingTests {
    /// The command the arguments parse to, when it is of that type.
    func command<Command: RunnableCommand>(_ arguments: [String], as type: Command.Type) throws
        -> Command?
    {
        try CommandTable.parser.parse(arguments).command as? Command
    }

    func error(_ arguments: [String]) -> String? {
        do {
            _ = try CommandTable.parser.parse(arguments)
            return nil
        } catch {
            return error.message
        }
    }

    @Test func onboardingDefaultsToStatus() throws {
        #expect(
            try command(["onboarding"], as: OnboardingStatusCommand.self)
                == OnboardingStatusCommand())
        #expect(
            try command(["onboarding", "next", "--pages", "5"], as: OnboardingNextCommand.self)
                == OnboardingNextCommand(pageCount: 5))
        #expect(error(["onboarding", "nxet"]) == "Unknown command 'nxet'. Did you mean 'next'?")
        #expect(
            error(["onboarding", "skip", "--pages", "0"])
                == "Invalid value '0' for '--pages': expected a positive integer")
    }

    @Test func selectionCommands() throws {
        #expect(
            try command(["selection", "list"], as: SelectionListCommand.self)
                == SelectionListCommand())
        #expect(
            try command(["selections", "ls"], as: SelectionListCommand.self)
                == SelectionListCommand())
        #expect(
            try command(["selection", "get", "carousel"], as: SelectionGetCommand.self)
                == SelectionGetCommand(name: "carousel"))
        #expect(
            try command(
                ["selection", "set", "carousel", "2", "--count", "13"], as: SelectionSetCommand.self
            )
                == SelectionSetCommand(name: "carousel", index: 2, count: 13))
        #expect(
            try command(
                ["selection", "set", "featured", "0", "--policy=wrap", "--item", "m2"],
                as: SelectionSetCommand.self)
                == SelectionSetCommand(name: "featured", index: 0, policy: .wrap, itemID: "m2"))
        #expect(
            try command(["selection", "prev", "featured"], as: SelectionPreviousCommand.self)
                == SelectionPreviousCommand(name: "featured"))
        #expect(
            try command(["selection", "next", "featured"], as: SelectionNextCommand.self)
                == SelectionNextCommand(name: "featured"))
        #expect(
            try command(["selection", "clear", "articles"], as: SelectionClearCommand.self)
                == SelectionClearCommand(name: "articles"))
        #expect(
            error(["selection", "set", "carousel", "two"])
                == "Invalid value 'two' for '<index>': expected an integer")
        #expect(
            error(["selection", "set", "carousel", "1", "--policy", "loop"])
                == "Invalid value 'loop' for '--policy': expected one of 'clamp', 'wrap', 'optional'"
        )
        #expect(
            error(["selection", "set", "carousel", "1", "--count", "-2"])
                == "Invalid value '-2' for '--count': expected a non-negative integer")
        #expect(error(["selection"]) == "Missing subcommand")
    }

    @Test func bookmarkAddAndToggleTakeRepeatedTags() throws {
        let expected = BookmarkDraft(
            kind: "trip", itemID: "london", title: "London",
            url: URL(string: "https://london.example"),
            category: "Europe", tags: ["uk", "city"], note: "Rainy")
        #expect(
            try command(
                [
                    "bookmark", "add", "trip", "london", "--title", "London", "--url",
                    "https://london.example",
                    "--category", "Europe", "--tag", "uk", "--tag=city", "--note", "Rainy",
                ], as: BookmarkAddCommand.self)?.draft == expected)
        #expect(
            try command(
                ["bookmark", "toggle", "trip", "paris", "--title", "Paris"],
                as: BookmarkToggleCommand.self)
                == BookmarkToggleCommand(
                    draft: BookmarkDraft(kind: "trip", itemID: "paris", title: "Paris")))
        // Removing needs no title.
        #expect(
            try command(["bookmark", "toggle", "trip", "paris"], as: BookmarkToggleCommand.self)
                == BookmarkToggleCommand(
                    draft: BookmarkDraft(kind: "trip", itemID: "paris", title: "")))
        #expect(
            error(["bookmark", "add", "trip", "london"])
                == "Missing expected option '--title <title>'")
        #expect(
            error(["bookmark", "add", "trip", "london", "--title", "L", "--url", "not a url"])
                == "Invalid value 'not a url' for '--url': expected an absolute URL")
        #expect(
            error(["bookmark", "add", "trip", "--title", "L"])
                == "Missing expected argument '<item-id>'")
        #expect(
            error(["bookmark", "add", "trip", "x", "--title", "A", "--title", "B"])
                == "'--title' was given more than once")
    }

    @Test func bookmarkRemoveByItemOrID() throws {
        #expect(
            try command(["bookmark", "remove", "trip", "london"], as: BookmarkRemoveCommand.self)
                == BookmarkRemoveCommand(reference: .item(kind: "trip", itemID: "london")))
        #expect(
            try command(["bookmark", "rm", "--id", "7"], as: BookmarkRemoveCommand.self)
                == BookmarkRemoveCommand(reference: .id(7)))
        #expect(
            error(["bookmark", "remove", "trip", "london", "--id", "7"])
                == "Pass either KIND ITEM-ID or --id, not both")
        #expect(error(["bookmark", "remove"]) == "Missing expected argument '<kind>' (or --id)")
        #expect(
            error(["bookmark", "remove", "--id", "0"])
                == "Invalid value '0' for '--id': expected a bookmark id (a positive integer)")
    }

    @Test func bookmarkListFiltersSortAndPaging() throws {
        #expect(
            try command(["bookmark", "list"], as: BookmarkListCommand.self)
                == BookmarkListCommand(query: BookmarkQuery()))
        #expect(
            try command(
                [
                    "bookmark", "ls", "--kind", "movie", "--category", "DC", "--tag", "featured",
                    "--sort", "title",
                    "-r", "--limit", "5", "--offset", "10", "--group-by", "category",
                ], as: BookmarkListCommand.self)
                == BookmarkListCommand(
                    query:
                        BookmarkQuery(
                            kind: "movie", category: "DC", tag: "featured", sort: .title,
                            isDescending: true, limit: 5, offset: 10),
                    grouping: .category))
        #expect(
            try command(
                ["bookmark", "list", "--folder", "Bar/AC\\/DC", "--group-by", "folder"],
                as: BookmarkListCommand.self)
                == BookmarkListCommand(
                    query:
                        BookmarkQuery(folder: ["Bar", "AC/DC"]), grouping: .folder))
        #expect(
            error(["bookmark", "list", "--sort", "size"])
                == "Invalid value 'size' for '--sort': expected one of 'position', 'created', 'title'"
        )
        #expect(
            error(["bookmark", "list", "--group-by", "kind"])
                == "Invalid value 'kind' for '--group-by': expected one of 'category', 'folder'")
    }

    @Test func bookmarkCountTakesTheFiltersOfList() throws {
        #expect(
            try command(["bookmark", "count", "--tag", "x"], as: BookmarkCountCommand.self)
                == BookmarkCountCommand(query: BookmarkQuery(tag: "x")))
        #expect(
            error(["bookmark", "count", "--title", "x"])
                == "'--title' does not apply to 'prefs bookmark count'")
    }

    @Test func bookmarkSearchMoveImportExport() throws {
        #expect(
            try command(["bookmark", "search", "aveng*", "war"], as: BookmarkSearchCommand.self)
                == BookmarkSearchCommand(text: "aveng* war", limit: 50))
        #expect(
            try command(["bookmark", "move", "3", "--to", "0"], as: BookmarkMoveCommand.self)
                == BookmarkMoveCommand(reference: .id(3), position: 0))
        #expect(
            try command(
                ["bookmark", "move", "trip", "london", "--to", "1"], as: BookmarkMoveCommand.self)
                == BookmarkMoveCommand(
                    reference: .item(kind: "trip", itemID: "london"), position: 1))
        #expect(error(["bookmark", "move", "3"]) == "Missing expected option '--to <position>'")
        #expect(error(["bookmark", "search"]) == "Missing expected argument '<query>'")
        #expect(
            try command(["bookmark", "import", "-"], as: BookmarkImportCommand.self)
                == BookmarkImportCommand(file: "-"))
        #expect(
            try command(
                ["bookmark", "import", "--format", "firefox", "places.sqlite"],
                as: BookmarkImportCommand.self)
                == BookmarkImportCommand(format: .firefox, file: "places.sqlite"))
        #expect(
            error(["bookmark", "import", "--format", "opera", "x"])
                == "Invalid value 'opera' for '--format': expected one of 'json', 'html', 'chromium', 'firefox', 'safari'"
        )
        #expect(
            try command(
                ["bookmark", "export", "--format", "html", "out.html"],
                as: BookmarkExportCommand.self)
                == BookmarkExportCommand(format: .html, file: "out.html"))
        #expect(
            error(["bookmark", "export", "--format", "csv"])
                == "Invalid value 'csv' for '--format': expected one of 'json', 'html'")
    }

    @Test func maintenanceCommands() throws {
        #expect(try command(["doctor"], as: DoctorCommand.self) == DoctorCommand(repair: false))
        #expect(
            try command(["doctor", "--repair"], as: DoctorCommand.self)
                == DoctorCommand(repair: true))
        #expect(
            try command(["completion", "fish"], as: CompletionCommand.self)
                == CompletionCommand(shell: .fish))
        #expect(
            error(["completion", "tcsh"])
                == "Invalid value 'tcsh' for '<shell>': expected one of 'bash', 'zsh', 'fish'")
        #expect(try command(["version"], as: VersionCommand.self) == VersionCommand())
        #expect(
            try command(["help", "bookmark", "add"], as: HelpCommand.self)
                == HelpCommand(path: ["bookmark", "add"]))
    }

    @Test func preferenceCommandsParse() throws {
        #expect(try command(["delete", "k"], as: DeleteCommand.self) == DeleteCommand(key: "k"))
        #expect(try command(["reset", "-f"], as: ResetCommand.self) == ResetCommand(force: true))
        #expect(
            try command(["watch", "a", "b"], as: WatchCommand.self)
                == WatchCommand(keys: ["a", "b"]))
        #expect(
            try command(["history", "k", "-n", "5"], as: HistoryCommand.self)
                == HistoryCommand(key: "k", limit: 5))
        #expect(try command(["suites"], as: SuitesCommand.self) == SuitesCommand())
        #expect(
            try command(
                [
                    "declare", "k", "--type", "bool", "--default", "false", "--description", "D",
                ], as: DeclareCommand.self)
                == DeclareCommand(key: "k", type: .bool, defaultText: "false", description: "D"))
        #expect(
            try command(
                ["export", "--format", "binary-plist", "out.plist"], as: ExportCommand.self)
                == ExportCommand(format: .binaryPlist, file: "out.plist"))
        #expect(
            try command(["import", "in.json", "--replace", "--force"], as: ImportCommand.self)
                == ImportCommand(file: "in.json", replace: true, force: true))
    }

    @Test func everyCommandHasHelpInTheStandardLayout() {
        var paths: [[String]] = []
        func visit(_ spec: CommandSpec, _ path: [String]) {
            paths.append(path)
            for sub in spec.subcommands { visit(sub, path + [sub.name]) }
        }
        visit(CommandTable.root, [])
        #expect(paths.count > 30)
        for path in paths {
            let help = CommandTable.helpFormatter.help(for: path)
            #expect(help.hasPrefix("OVERVIEW: "), "\(path)")
            #expect(help.contains("\nUSAGE: prefs"), "\(path)")
            #expect(help.contains("\nOPTIONS:\n"), "\(path)")
            let overview = help.split(separator: "\n").first ?? ""
            #expect(overview.hasSuffix("."), "\(path): \(overview)")
        }
    }

    /// Subcommands are found by the names their group holds, before they are built: those
    /// names must be the specs' own, or a command would answer to a name help never shows.
    @Test func everyGroupKnowsItsSubcommandsByTheirOwnNames() {
        var groups = 0
        func visit(_ spec: CommandSpec) {
            if spec.hasSubcommands { groups += 1 }
            for entry in spec.subcommandEntries {
                let built = entry.spec()
                #expect(entry.name == built.name, "\(spec.name): \(entry.name)")
                #expect(entry.aliases == built.aliases, "\(spec.name) \(entry.name)")
                visit(built)
            }
        }
        visit(CommandTable.root)
        #expect(groups >= 4)
        #expect(CommandTable.root.subcommands.map(\.name).starts(with: ["get", "describe"]))
    }
}
