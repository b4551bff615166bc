import PrefsKit

extension CommandContext {
    func onboarding(_ action: OnboardingAction, pageCount: Int?) throws {
        if action == .status {
            return try printOnboardingStatus(pageCount: pageCount)
        }
        let database = try openForWriting()
        let existing = try SelectionStore(database: database).selection(
            named: Walkthrough.selectionName)
        let walkthrough = try Walkthrough(
            preferences: PreferenceStore(database: database, suite: suite),
            selections: SelectionStore(database: database),
            pageCount: pageCount ?? existing?.count ?? 3)
        switch action {
        case .status: break
        case .next: try walkthrough.next()
        case .skip: try walkthrough.skip()
        case .reset: try walkthrough.reset()
        }
        printOnboarding(
            hasViewed: walkthrough.hasViewedWalkthrough, page: walkthrough.currentPage,
            pageCount: walkthrough.pageCount)
    }

    /// Reads the state without writing: a missing file or selection shows the first page.
    private func printOnboardingStatus(pageCount: Int?) throws {
        let database = try openForReading()
        let selection = try database.flatMap {
            try SelectionStore(database: $0).selection(named: Walkthrough.selectionName)
        }
        let hasViewed =
            database.map {
                PreferenceStore(database: $0, suite: suite)[Walkthrough.hasViewedWalkthroughKey]
            } ?? false
        let count = pageCount ?? selection?.count ?? 3
        let page = min(selection?.index ?? 0, count - 1)
        printOnboarding(hasViewed: hasViewed, page: page, pageCount: count)
    }

    private func printOnboarding(hasViewed: Bool, page: Int, pageCount: Int) {
        if globals.isJSON {
            printJSON(
                .object([
                    ("hasViewedWalkthrough", .bool(hasViewed)), ("shouldShow", .bool(!hasViewed)),
                    ("currentPage", .integer(page)), ("pageCount", .integer(pageCount)),
                ]))
        } else {
            console.print(
                """
                hasViewedWalkthrough=\(hasViewed)
                shouldShow=\(!hasViewed)
                currentPage=\(page)
                pageCount=\(pageCount)

                """)
        }
    }
}
