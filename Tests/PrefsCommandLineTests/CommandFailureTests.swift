import PrefsKit
import Testing

@testable import PrefsCommandLine

/// Exit code 70 has no real bad input that produces it (it means a bug), so the mapping is
/// checked here: anything the command layer does not know becomes "Internal error" and 70.
@Suite struct CommandFailureTests {
    struct Unexpected: Error, CustomStringConvertible {
        var description: String { "something unforeseen" }
    }

    @Test func unknownErrorsAreInternalErrors() {
        #expect(
            CommandFailure(Unexpected())
                == CommandFailure("Internal error: something unforeseen", exitCode: 70))
        let sqlite = CommandFailure(
            DatabaseError.internalError("SQLite error 1: no such column: x"))
        #expect(
            sqlite
                == CommandFailure("Internal error: SQLite error 1: no such column: x", exitCode: 70)
        )
    }

    @Test func libraryErrorsKeepTheirDocumentedCodes() {
        #expect(CommandFailure(DatabaseError.busy(path: "p")).exitCode == 75)
        #expect(CommandFailure(DatabaseError.diskFull(path: "p")).exitCode == 74)
        #expect(CommandFailure(DatabaseError.cannotCreate(path: "p", reason: "r")).exitCode == 73)
        #expect(CommandFailure(DatabaseError.notFound(path: "p")).exitCode == 66)
        #expect(
            CommandFailure(DatabaseError.newerVersion(path: "p", found: 9, supported: 4)).exitCode
                == 65)
        #expect(CommandFailure(DatabaseError.foreignDatabase(path: "p")).exitCode == 65)
        #expect(CommandFailure(DatabaseError.readOnly(path: "p")).exitCode == 74)
        #expect(CommandFailure(BookmarkError.notFound(id: 3)).exitCode == 1)
    }
}
