/// A progress bar on stderr for long imports, drawn only when stderr is a terminal.
final class ProgressBar {
    private let console: Console
    private let label: String
    private let isVisible: Bool
    private var lastPercent = -1
    private var isDrawn = false

    init(console: Console, label: String) {
        self.console = console
        self.label = label
        isVisible = console.isErrorTerminal
    }

    /// Redraws the bar when the percentage changed.
    func update(done: Int, total: Int) {
        guard isVisible, total > 0 else { return }
        let percent = min(100, done * 100 / total)
        guard percent != lastPercent else { return }
        lastPercent = percent
        let width = 30
        let filled = percent * width / 100
        let bar =
            String(repeating: "#", count: filled) + String(repeating: ".", count: width - filled)
        console.error("\r\(label) [\(bar)] \(percent)% (\(done)/\(total))")
        isDrawn = true
    }

    /// Clears the bar's line.
    func finish() {
        guard isDrawn else { return }
        console.error("\r\u{1B}[2K")
        isDrawn = false
    }
}
