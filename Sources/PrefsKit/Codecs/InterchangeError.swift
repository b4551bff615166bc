/// Why a file or text could not be read, and where: the one error of every reader of file
/// formats (JSON, XML and binary property lists, Netscape bookmark files).
public struct InterchangeError: Error, CustomStringConvertible, Hashable, Sendable {
    /// Where in the input the problem is.
    public enum Location: Hashable, Sendable {
        /// A line, from 1, and a column (in characters), from 1.
        case lineAndColumn(line: Int, column: Int)
        /// A line, from 1.
        case line(Int)
        /// A byte offset, from 0.
        case byteOffset(Int)
        /// A path of keys and indices in a document, such as `roots.bookmark_bar.children[2]`.
        case keyPath(String)
    }

    /// What is wrong.
    public let reason: String
    /// Where; nil when the problem is the input as a whole (too short, no header).
    public let location: Location?

    /// An error of a reader: what is wrong, and where when it is one place of the input.
    public init(reason: String, location: Location? = nil) {
        self.reason = reason
        self.location = location
    }

    /// The line of the problem, from 1, when it has one.
    public var line: Int? {
        switch location {
        case .lineAndColumn(let line, _), .line(let line): line
        case .byteOffset, .keyPath, nil: nil
        }
    }

    /// The reason and where, in one line.
    public var description: String {
        switch location {
        case .lineAndColumn(let line, let column): "\(reason) at line \(line), column \(column)"
        case .line(let line): "\(reason) at line \(line)"
        case .byteOffset(let offset): "\(reason) at byte \(offset)"
        case .keyPath(let path): "\(reason) at \(path)"
        case nil: reason
        }
    }
}
