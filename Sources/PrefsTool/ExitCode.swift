/// The exit codes of both tools, `prefs` and `prefs-server`: sysexits.h's, and 1 for
/// nothing found. One failure has one code, whichever tool meets it.
package enum ExitCode {
    /// Nothing found (`get` of a key with no value, a bookmark that is not there).
    package static let notFound: Int32 = 1
    /// `EX_USAGE`: the command line is wrong.
    package static let usage: Int32 = 64
    /// `EX_DATAERR`: the input (a value, a file) is wrong.
    package static let dataError: Int32 = 65
    /// `EX_NOINPUT`: no database, or no file, to read.
    package static let noInput: Int32 = 66
    /// `EX_UNAVAILABLE`: this build lacks what is needed (PostgreSQL in the static build).
    package static let unavailable: Int32 = 69
    /// `EX_SOFTWARE`: a bug.
    package static let software: Int32 = 70
    /// `EX_OSERR`: the system refused a resource (file descriptors, an address to listen on).
    package static let systemError: Int32 = 71
    /// `EX_CANTCREAT`: the database (or an output file) cannot be made.
    package static let cannotCreate: Int32 = 73
    /// `EX_IOERR`: reading or writing failed (a full disk, a read-only file).
    package static let ioError: Int32 = 74
    /// `EX_TEMPFAIL`: try again (locked, busy, a server away).
    package static let temporaryFailure: Int32 = 75
    /// `EX_NOPERM`: not allowed (a file shared with others, a role of another account).
    package static let noPermission: Int32 = 77
}
