// The Swift floor for `prefs get KEY`: the work of Benchmarks/CGetPrint/main.c (open the
// database, read one value, print it, exit) written in Swift against SQLite's C API, with
// no PrefsKit. Linked fully static beside the C program (`Benchmarks/static-get`), the two
// differ by what the Swift runtime itself costs a process: what no Swift command can go
// below. Usage: prefs-swift-get DB KEY
import CSQLite

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

let arguments = CommandLine.unsafeArgv
guard CommandLine.argc == 3, let path = arguments[1], let key = arguments[2] else {
    let usage = "usage: prefs-swift-get DB KEY\n"
    _ = usage.withCString { write(2, $0, strlen($0)) }
    exit(64)
}
var database: OpaquePointer?
guard sqlite3_open_v2(path, &database, SQLITE_OPEN_READONLY, nil) == SQLITE_OK else { exit(66) }
var statement: OpaquePointer?
var status: Int32 = 1
if sqlite3_prepare_v2(
    database, "SELECT value FROM preference WHERE suite = 'standard' AND key = ?", -1,
    &statement, nil) == SQLITE_OK
{
    sqlite3_bind_text(statement, 1, key, -1, nil)
    if sqlite3_step(statement) == SQLITE_ROW, let text = sqlite3_column_text(statement, 0) {
        text.withMemoryRebound(to: CChar.self, capacity: 1) { _ = puts($0) }
        status = 0
    }
    sqlite3_finalize(statement)
}
sqlite3_close(database)
exit(status)
