import PrefsKit
import PrefsSync

/// A command that could not do its work: a one-line message and a sysexits code.
struct CommandFailure: Error, Equatable {
    var message: String
    var exitCode: Int32

    init(_ message: String, exitCode: Int32) {
        self.message = message
        self.exitCode = exitCode
    }

    /// Nothing found (`get` of a key with no value, a bookmark that is not there).
    static let notFound: Int32 = 1
    /// `EX_USAGE`: the command line is wrong.
    static let usage: Int32 = 64
    /// `EX_DATAERR`: the input (a value, a file) is wrong.
    static let dataError: Int32 = 65
    /// `EX_NOINPUT`: no database, or no file, to read.
    static let noInput: Int32 = 66
    /// `EX_UNAVAILABLE`: this build lacks what is needed (PostgreSQL in the static build).
    static let unavailable: Int32 = 69
    /// `EX_SOFTWARE`: a bug of prefs.
    static let software: Int32 = 70
    /// `EX_OSERR`: the system refused a resource (file descriptors).
    static let systemError: Int32 = 71
    /// `EX_CANTCREAT`: the database cannot be made.
    static let cannotCreate: Int32 = 73
    /// `EX_IOERR`: reading or writing failed (a full disk, a read-only file).
    static let ioError: Int32 = 74
    /// `EX_TEMPFAIL`: try again (locked, busy, a server away).
    static let temporaryFailure: Int32 = 75
    /// `EX_NOPERM`: not allowed (a file shared with others, a role of another account).
    static let noPermission: Int32 = 77

    /// Maps errors of the library to messages and exit codes.
    init(_ error: Error) {
        switch error {
        case let failure as CommandFailure:
            self = failure
        case let error as DatabaseError:
            self.init(error.commandMessage, exitCode: error.exitCode)
        case let error as PreferenceError:
            switch error {
            case .invalidKey, .invalidSuite: self.init(error.description, exitCode: Self.usage)
            default: self.init(error.description, exitCode: Self.dataError)
            }
        case let error as SelectionError:
            if case .notFound = error {
                self.init(error.description, exitCode: Self.notFound)
            } else {
                self.init(error.description, exitCode: Self.dataError)
            }
        case let error as BookmarkError:
            switch error {
            case .notFound, .itemNotFound: self.init(error.description, exitCode: Self.notFound)
            case .invalid: self.init(error.description, exitCode: Self.usage)
            case .positionOutOfRange, .malformedImport:
                self.init(error.description, exitCode: Self.dataError)
            }
        case let error as SyncError:
            switch error {
            case .otherAccount, .invalidDeviceName:
                self.init(error.description, exitCode: Self.dataError)
            // The library names no option; the command says which one is the remedy.
            case .notADeviceFile, .notConfigured:
                self.init(error.description + " (--hub)", exitCode: Self.usage)
            case .standbyIsNotAServer:
                self.init(
                    error.description.replacing(
                        "(standbyTarget)", with: "(PREFS_STANDBY_DB)"),
                    exitCode: Self.usage)
            default: self.init(error.description, exitCode: Self.usage)
            }
        default:
            self.init("Internal error: \(error)", exitCode: Self.software)
        }
    }
}
