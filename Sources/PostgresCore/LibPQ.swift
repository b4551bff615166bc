internal import CLibPQ

/// libpq itself, loaded the first time a server is named rather than when the program
/// starts (`Sources/CLibPQ/include/libpq_loader.h`): a program that only opens SQLite
/// files never maps it or the libraries it brings.
package enum LibPQ {
    /// Whether this build can load libpq at all: false in the fully static build
    /// (`Install/build-static`), which leaves PostgreSQL out.
    package static var isBuiltIn: Bool { prefs_libpq_is_built_in() == 1 }

    /// Why libpq could not be loaded, or nil once it is. The first call loads it; it is
    /// looked for as `libpq.so.5` (`libpq.5.dylib` and Homebrew's and Postgres.app's
    /// folders on macOS), or at the path in `PREFS_LIBPQ` when that is set.
    package static var loadFailure: String? {
        var reason = [CChar](repeating: 0, count: 512)
        if prefs_libpq_load(&reason, reason.count) == 1 { return nil }
        return String(
            decoding: reason.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// Loads libpq, or says why it cannot be.
    ///
    /// - Throws: ``PGError`` naming the file the loader could not open or the function it
    ///   lacks.
    static func load() throws(PGError) {
        if let reason = loadFailure {
            throw PGError(
                sqlState: nil,
                message: "PostgreSQL's client library (libpq) could not be loaded: \(reason)")
        }
    }
}
