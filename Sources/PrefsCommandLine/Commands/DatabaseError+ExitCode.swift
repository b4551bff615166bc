import PrefsKit

extension DatabaseError {
    /// The sysexits code the `prefs` command exits with for this error.
    var exitCode: Int32 {
        switch kind {
        case .notFound, .specialFile, .accessDenied, .folderMissing, .cannotOpen,
            .serverDatabaseMissing:
            CommandFailure.noInput
        case .untrustedFile, .permissionDenied: CommandFailure.noPermission
        case .invalidConnectionString, .invalidConnectionOption: CommandFailure.usage
        case .isDirectory, .isSymlink, .notADatabase, .foreignDatabase, .newerVersion, .tooLarge:
            CommandFailure.dataError
        case .cannotCreate: CommandFailure.cannotCreate
        case .diskFull, .readOnly, .ioError, .needsUpgrade: CommandFailure.ioError
        case .busy, .unavailable, .timedOut: CommandFailure.temporaryFailure
        case .unsupported: CommandFailure.unavailable
        case .internalError: CommandFailure.software
        }
    }

    /// The message the command prints: the library's description, with the option of the
    /// command that is the remedy where there is one (the library names none).
    var commandMessage: String {
        switch kind {
        case .isDirectory: description + "; pass a file path with --db"
        case .untrustedFile(let path, let file, let reason):
            "Refusing to open '\(path)': '\(file)' is not safe, \(reason); if the file is shared"
                + " on purpose, pass --allow-shared or set PREFS_ALLOW_SHARED=1"
        case .permissionDenied(let path, let detail)
        where detail.hasSuffix("(PostgreSQLOptions.account)"):
            DatabaseError.permissionDenied(
                path: path,
                detail: detail.replacing(
                    "(PostgreSQLOptions.account)", with: "(--account or PREFS_ACCOUNT)")
            ).description
        default: description
        }
    }
}
