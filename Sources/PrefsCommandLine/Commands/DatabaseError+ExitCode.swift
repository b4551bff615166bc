import PrefsKit
import PrefsTool

extension DatabaseError {
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
