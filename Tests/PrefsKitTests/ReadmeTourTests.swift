import Foundation
import Testing

/// The README's library tour is `Examples/Tour/main.swift`, word for word: CI builds and runs
/// that program, so the README's code compiles and runs as written.
@Suite struct ReadmeTourTests {
    static let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    @Test func theReadmesTourIsTheExampleProgram() throws {
        let readme = try String(
            contentsOf: Self.root.appendingPathComponent("README.md"), encoding: .utf8)
        let program = try String(
            contentsOf: Self.root.appendingPathComponent("Examples/Tour/main.swift"),
            encoding: .utf8)
        let section = try #require(readme.range(of: "## A tour of the library\n"))
        let opening = try #require(
            readme.range(of: "```swift\n", range: section.upperBound..<readme.endIndex))
        let closing = try #require(
            readme.range(of: "```\n", range: opening.upperBound..<readme.endIndex))
        #expect(String(readme[opening.upperBound..<closing.lowerBound]) == program)
    }
}
