import Foundation
import Testing

/// The README's library tour is `Examples/Tour/main.swift` and `Support.swift`, word for
/// word, in its first two code blocks: CI builds and runs that program, so the README's code
/// compiles and runs as pasted, with nothing defined elsewhere.
@Suite struct ReadmeTourTests {
    static let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    @Test func theReadmesTourIsTheExampleProgram() throws {
        let readme = try String(
            contentsOf: Self.root.appendingPathComponent("README.md"), encoding: .utf8)
        let section = try #require(readme.range(of: "## A tour of the library\n"))
        var rest = section.upperBound..<readme.endIndex
        for file in ["main.swift", "Support.swift"] {
            let program = try String(
                contentsOf: Self.root.appendingPathComponent("Examples/Tour/\(file)"),
                encoding: .utf8)
            let opening = try #require(readme.range(of: "```swift\n", range: rest))
            let closing = try #require(
                readme.range(of: "```\n", range: opening.upperBound..<readme.endIndex))
            #expect(String(readme[opening.upperBound..<closing.lowerBound]) == program, "\(file)")
            rest = closing.upperBound..<readme.endIndex
        }
    }
}
