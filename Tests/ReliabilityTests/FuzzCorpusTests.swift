import Foundation
import PrefsFuzzing
import Testing

/// Replays the kept fuzzing corpus (Tests/Fuzz/Corpus/TARGET/*) through each target, so
/// that every input that once found a bug keeps being checked.
@Suite struct FuzzCorpusTests {
    static let corpus = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent(
            "Fuzz/Corpus")

    @Test(arguments: FuzzTarget.allCases)
    func corpusReplaysWithoutCrashing(target: FuzzTarget) throws {
        let folder = Self.corpus.appendingPathComponent(target.rawValue)
        let files = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter {
            !$0.hasPrefix(".")
        }
        #expect(!files.isEmpty, "no corpus for \(target)")
        for file in files {
            let data = try Data(contentsOf: folder.appendingPathComponent(file))
            target.run(Array(data))
        }
    }
}
