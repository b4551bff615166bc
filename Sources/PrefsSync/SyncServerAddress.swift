import PrefsKit

/// Which addresses a device sends its token to: `https://` to any host, `http://` only to
/// this machine (loopback), never with credentials in the address.
package enum SyncServerAddress {
    /// Whether the text names a sync server (`http://` or `https://`), acceptable or not.
    package static func isServer(_ text: String) -> Bool {
        let lowered = text.lowercased()
        return lowered.hasPrefix("https://") || lowered.hasPrefix("http://")
    }

    /// Whether a token may be sent to it.
    package static func isAcceptable(_ text: String) -> Bool {
        let lowered = text.lowercased()
        let isTLS = lowered.hasPrefix("https://")
        guard isTLS || lowered.hasPrefix("http://") else { return false }
        let rest = lowered.dropFirst(isTLS ? 8 : 7)
        let authority = rest.prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        guard !authority.isEmpty, !authority.contains("@"),
            !text.unicodeScalars.contains(where: {
                $0.properties.generalCategory == .control || $0 == " "
            })
        else { return false }
        if isTLS { return true }
        return isLoopback(host(of: String(authority)))
    }

    /// The host of `host[:port]` or `[v6]:port`.
    private static func host(of authority: String) -> String {
        if authority.hasPrefix("["), let end = authority.firstIndex(of: "]") {
            return String(authority[authority.index(after: authority.startIndex)..<end])
        }
        return String(authority.prefix { $0 != ":" })
    }

    private static func isLoopback(_ host: String) -> Bool {
        if host == "localhost" || host == "::1" { return true }
        let parts = host.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 4, parts.allSatisfy({ UInt8($0) != nil }) else { return false }
        return parts[0] == "127"
    }
}
