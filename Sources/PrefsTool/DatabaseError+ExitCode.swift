import PrefsKit

extension DatabaseError {
    /// The tools' exit code for the error.
    package var exitCode: Int32 {
        switch kind {
        case .notFound, .specialFile, .accessDenied, .folderMissing, .cannotOpen,
            .serverDatabaseMissing:
            ExitCode.noInput
        case .untrustedFile, .permissionDenied: ExitCode.noPermission
        case .invalidConnectionString, .invalidConnectionOption: ExitCode.usage
        case .isDirectory, .isSymlink, .notADatabase, .foreignDatabase, .newerVersion, .tooLarge,
            .cannotHoldText:
            ExitCode.dataError
        case .cannotCreate: ExitCode.cannotCreate
        case .diskFull, .readOnly, .ioError, .needsUpgrade: ExitCode.ioError
        case .busy, .unavailable, .timedOut: ExitCode.temporaryFailure
        case .unsupported: ExitCode.unavailable
        case .internalError: ExitCode.software
        }
    }
}
