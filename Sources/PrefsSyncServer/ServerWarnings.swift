import PrefsKit
import PrefsPostgreSQL

/// What the operator hears when prefs-server starts in a way that puts tokens or the hub at
/// risk: each a line on standard error, and the server runs as told.
package enum ServerWarnings {
    /// The warnings for a command line (without the program's name), the address `serve`
    /// listens on (nil for the token commands), and the effective user id.
    package static func of(
        _ arguments: [String], listeningOn address: String?, effectiveUserID: UInt32
    ) -> [String] {
        var warnings: [String] = []
        for (flag, value) in hubsGiven(in: arguments) where DatabaseLocation.holdsPassword(value) {
            warnings.append(
                "the password in --\(flag) can be read by every user of this machine (ps shows"
                    + " a command line): give it in ~/.pgpass or PGPASSFILE, or the whole"
                    + " string in PREFS_HUB")
        }
        if let address, !isLoopback(address) {
            warnings.append(
                "listening on \(address) in plain HTTP: device tokens cross the network in"
                    + " clear unless a TLS proxy is in front (docs/deploy.md); listen on"
                    + " 127.0.0.1 behind one")
        }
        if effectiveUserID == 0 {
            warnings.append(
                "running as root: a user of its own is enough, and the hub's role holds the"
                    + " data (docs/deploy.md)")
        }
        return warnings
    }

    /// The hub strings given as flags (`--hub`, `--listen-hub`, either form).
    private static func hubsGiven(in arguments: [String]) -> [(String, String)] {
        var found: [(String, String)] = []
        var index = arguments.startIndex
        while index < arguments.endIndex {
            let argument = arguments[index]
            for flag in ["hub", "listen-hub"] {
                if argument == "--" + flag, index + 1 < arguments.endIndex {
                    found.append((flag, arguments[index + 1]))
                } else if argument.hasPrefix("--\(flag)=") {
                    found.append((flag, String(argument.dropFirst(flag.count + 3))))
                }
            }
            index += 1
        }
        return found
    }

    /// Whether an address is this machine only (`127.0.0.0/8`, `::1`, `localhost`).
    static func isLoopback(_ address: String) -> Bool {
        var host = address
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        return host == "localhost" || host == "::1" || host.hasPrefix("127.")
    }
}
