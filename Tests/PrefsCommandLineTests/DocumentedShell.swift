import Foundation

/// The shell lines of a Markdown document, read as a user pastes them: continuation lines
/// joined, each command with what its comments say.
enum DocumentedShell {
    /// One command of a block.
    struct Step {
        /// The command, continuation lines joined.
        var command: String
        /// The comment at the end of its line.
        var comment: String
        /// Comment lines right below it: what it prints.
        var printed: [String] = []
        /// The language of its block: `sh`, or `sql` for a block meant for `psql`.
        var language = "sh"

        /// The exit status its comment names ("exit 1: ..."), else 0.
        var expectedStatus: Int32 {
            guard let range = comment.range(of: #"exit (\d+)"#, options: .regularExpression)
            else { return 0 }
            return Int32(comment[range].dropFirst(5)) ?? -1
        }
    }

    /// The bodies of the fenced blocks of `languages`, in the order of the document.
    static func blocks(of markdown: String, languages: Set<String>) -> [(
        language: String, body: Substring
    )] {
        var blocks: [(String, Substring)] = []
        var rest = markdown[...]
        while let opening = rest.range(of: "```") {
            let afterFence = rest[opening.upperBound...]
            guard let lineEnd = afterFence.firstIndex(of: "\n") else { break }
            let language = String(afterFence[..<lineEnd])
            let body = afterFence[afterFence.index(after: lineEnd)...]
            guard let closing = body.range(of: "```\n") ?? body.range(of: "```") else { break }
            if languages.contains(language) {
                blocks.append((language, body[..<closing.lowerBound]))
            }
            rest = body[closing.upperBound...]
        }
        return blocks
    }

    /// The commands of a shell block. A comment line right below a command (or below such a
    /// line) is what the command prints; one after a blank line or another comment says what
    /// follows and is not kept.
    static func steps(of block: Substring) -> [Step] {
        var steps: [Step] = []
        var pending = ""
        var lastLineWasStep = false
        for line in block.split(separator: "\n", omittingEmptySubsequences: false) {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if trimmed.isEmpty {
                lastLineWasStep = false
                continue
            }
            if trimmed.hasPrefix("#") && pending.isEmpty {
                if lastLineWasStep, !steps.isEmpty {
                    steps[steps.count - 1].printed.append(
                        trimmed.dropFirst().trimmingCharacters(in: .whitespaces))
                }
                continue
            }
            var text = String(line)
            var comment = ""
            if let hash = text.range(of: "  #") ?? text.range(of: " # ") {
                comment = String(text[hash.upperBound...]).trimmingCharacters(in: .whitespaces)
                text = String(text[..<hash.lowerBound])
            }
            text = text.trimmingCharacters(in: .whitespaces)
            if text.hasSuffix("\\") {
                pending += text.dropLast() + " "
                continue
            }
            steps.append(Step(command: pending + text, comment: comment))
            pending = ""
            lastLineWasStep = true
        }
        return steps
    }

    /// `text` with every run of spaces made one, so that a column's padding does not matter.
    static func collapsingSpaces(_ text: String) -> String {
        text.replacingOccurrences(of: " +", with: " ", options: .regularExpression)
    }
}
