/// Why a JSON text could not be parsed, with the line and column.
public struct JSONParseError: Error, CustomStringConvertible, Equatable, Sendable {
    /// What is wrong.
    public let reason: String
    /// The line of the problem, from 1.
    public let line: Int
    /// The column of the problem, from 1.
    public let column: Int

    /// The reason and where, in one line.
    public var description: String { "\(reason) at line \(line), column \(column)" }
}
