import PrefsKit
import PrefsSync
import PrefsTool

/// A command that could not do its work: a one-line message and a sysexits code.
struct CommandFailure: Error, Equatable {
    var message: String
    var exitCode: Int32
    /// The engine's code for the failure (`SQLSTATE 23514`, `SQLite result code 517`), or
    /// a sync server's status and stable code (`HTTP 401 bad_token`): for `--json`.
    var engineCode: String?
    /// The engine's, server's or transport's own error, on one line: for `--json`.
    var cause: String?

    init(_ message: String, exitCode: Int32) {
        self.message = message
        self.exitCode = exitCode
    }

    // The codes, as the commands name them (PrefsTool's ExitCode says what each means).
    static let notFound = ExitCode.notFound
    static let usage = ExitCode.usage
    static let dataError = ExitCode.dataError
    static let noInput = ExitCode.noInput
    static let unavailable = ExitCode.unavailable
    static let software = ExitCode.software
    static let systemError = ExitCode.systemError
    static let cannotCreate = ExitCode.cannotCreate
    static let ioError = ExitCode.ioError
    static let temporaryFailure = ExitCode.temporaryFailure
    static let noPermission = ExitCode.noPermission

    /// Maps errors of the library to messages and exit codes.
    init(_ error: Error) {
        switch error {
        case let failure as CommandFailure:
            self = failure
        case let error as DatabaseError:
            self.init(error.commandMessage, exitCode: error.exitCode)
            if (error.underlying as? SyncTransportError)?.isUntrusted == true {
                message +=
                    "; if a private CA signed it, name the CA's certificates with --ca-file FILE"
                    + " (or PREFS_CA_FILE)"
            }
            engineCode = error.engineCode?.description
            if let refusal = error.underlying as? SyncServerRefusal {
                engineCode = "HTTP \(refusal.status) \(refusal.code)"
            }
            cause = error.underlying.map { MessageText.escaped(String(describing: $0)) }
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
