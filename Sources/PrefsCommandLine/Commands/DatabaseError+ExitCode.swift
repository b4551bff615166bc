import PrefsKit

extension DatabaseError {
    /// The sysexits code the `prefs` command exits with for this error.
    var exitCode: Int32 {
        switch self {
        case .notFound, .specialFile, .accessDenied, .folderMissing, .cannotOpen: 66
        case .untrustedFile: 77
        case .invalidConnectionString, .invalidConnectionOption: 64
        case .isDirectory, .isSymlink, .notADatabase, .foreignDatabase, .newerVersion, .tooLarge:
            65
        case .cannotCreate: 73
        case .diskFull, .readOnly, .ioError, .needsUpgrade: 74
        case .busy, .unavailable, .timedOut: 75
        case .serverDatabaseMissing: 66
        case .permissionDenied: 77
        case .unsupported: 69
        case .internalError: 70
        }
    }

    /// The message the command prints: the library's description, with a hint where an
    /// option of the command is the remedy.
    var commandMessage: String {
        switch self {
        case .isDirectory: description + "; pass a file path with --db"
        default: description
        }
    }
}
