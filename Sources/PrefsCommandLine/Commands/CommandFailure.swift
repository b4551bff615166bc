import PrefsKit

/// A command that could not do its work: a one-line message and a sysexits code.
struct CommandFailure: Error, Equatable {
    var message: String
    var exitCode: Int32

    init(_ message: String, exitCode: Int32) {
        self.message = message
        self.exitCode = exitCode
    }

    static let notFound: Int32 = 1
    static let usage: Int32 = 64
    static let dataError: Int32 = 65
    static let noInput: Int32 = 66
    static let software: Int32 = 70
    /// `EX_OSERR`: the system refused a resource (file descriptors).
    static let systemError: Int32 = 71
    static let cannotCreate: Int32 = 73
    static let ioError: Int32 = 74
    static let temporaryFailure: Int32 = 75

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
            default: self.init(error.description, exitCode: Self.usage)
            }
        default:
            self.init("Internal error: \(error)", exitCode: Self.software)
        }
    }
}
