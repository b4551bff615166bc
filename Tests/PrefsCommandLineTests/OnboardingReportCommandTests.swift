import Foundation
import TestSupport
import Testing

/// `prefs onboarding report` on a file: the account's own walkthrough, how it ended, and
/// the changes of its keys, from the real binary.
@Suite struct OnboardingReportCommandTests {
    let folder: TemporaryFolder
    let db: String

    init() throws {
        folder = try TemporaryFolder()
        db = folder.path("prefs.sqlite")
    }

    func prefs(_ arguments: String...) throws -> ProcessOutput {
        try runPrefs(["--db", db] + arguments)
    }

    @Test func aStoreWithNoFileReportsTheFirstPageAndMakesNoFile() throws {
        let result = try prefs("onboarding", "report")
        #expect(result.status == 0, "\(result.stderr)")
        #expect(
            result.stdout
                == "shown: yes\npage: 1 of 3\noutcome: not ended (on page 1)\nchanges: none\n")
        #expect(!FileManager.default.fileExists(atPath: db))
    }

    @Test func aSkipIsReportedWithItsPageTimeAndChanges() throws {
        #expect(try prefs("onboarding", "next").status == 0)
        #expect(try prefs("onboarding", "skip").status == 0)
        let result = try prefs("--json", "onboarding", "report")
        #expect(result.status == 0, "\(result.stderr)")
        let report = try #require(
            try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        #expect(report["shouldShow"] as? Bool == false)
        let outcome = try #require(report["outcome"] as? [String: Any])
        #expect(outcome["ending"] as? String == "skipped")
        #expect(outcome["page"] as? Int == 1)
        #expect((outcome["at"] as? String)?.hasPrefix("20") == true)
        let changes = try #require(report["changes"] as? [[String: Any]])
        #expect(
            Set(changes.compactMap { $0["key"] as? String }) == [
                "hasViewedWalkthrough", "walkthroughEnding", "walkthroughEndedOnPage",
                "walkthroughEndedAt",
            ])
        let text = try prefs("onboarding", "report").stdout
        #expect(
            text.hasPrefix("shown: no\npage: 2 of 3\noutcome: skipped on page 2 at 20"), "\(text)")
        #expect(text.contains("  walkthroughEnding = skipped\n"), "\(text)")
    }

    /// Set by hand (or by an app from before the ending was recorded): finished, at a time
    /// not recorded. A reset forgets the ending.
    @Test func hasViewedWalkthroughAloneReadsAsFinished() throws {
        #expect(try prefs("set", "hasViewedWalkthrough", "true").status == 0)
        #expect(
            try prefs("onboarding", "report").stdout.contains(
                "outcome: finished at a time not recorded\n"))
        #expect(try prefs("onboarding", "reset").status == 0)
        #expect(
            try prefs("onboarding", "report").stdout.contains(
                "outcome: not ended (on page 1)\n"))
    }

    /// The walkthrough's keys are declared with their types: a value of another type is
    /// refused with the documented exit code.
    @Test func aValueOfAnotherTypeIsRefused() throws {
        #expect(try prefs("onboarding", "next").status == 0)
        let result = try prefs("set", "walkthroughEnding", "--type", "int", "3")
        #expect(result.status == 65, "\(result.stderr)")
    }
}
