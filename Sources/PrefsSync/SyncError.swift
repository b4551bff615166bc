import PrefsKit

/// Why sync cannot start.
public enum SyncError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The device's database is on a server: a device keeps a file.
    case notADeviceFile
    /// The hub is a file, not a PostgreSQL server.
    case hubIsNotAServer(target: String)
    /// The standby that pulls may read (the hub options' `standbyTarget`) is a file,
    /// not a PostgreSQL server.
    case standbyIsNotAServer(target: String)
    /// The device syncs one account; another was asked for.
    case otherAccount(device: String, requested: String)
    /// The device never synced, and no hub was named.
    case notConfigured
    /// A device name that is not 1 to 64 code points without control characters.
    case invalidDeviceName(String)
    /// A sync server's address a token may not be sent to: not `https://` (`http://` only
    /// to this machine), or with credentials in it.
    case insecureServer(String)

    /// One line for the user.
    public var description: String {
        switch self {
        case .notADeviceFile:
            "a device's database must be a file; the server is the hub"
        case .hubIsNotAServer(let target):
            "the hub must be a PostgreSQL connection string, not '\(target)'"
        case .standbyIsNotAServer(let target):
            "the standby (standbyTarget) must be a PostgreSQL connection string, not"
                + " '\(target)'"
        case .otherAccount(let device, let requested):
            "this device syncs the account '\(device)', not '\(requested)'"
        case .notConfigured:
            "this device has never synced: name the hub"
        case .insecureServer(let address):
            "a device token goes only to an https:// sync server (http:// only on this"
                + " machine), with no credentials in its address: not"
                + " '\(MessageText.shown(address))'"
        case .invalidDeviceName(let name):
            "the device name '\(MessageText.shown(name))' must be 1 to 64 characters (code"
                + " points) without control characters"
        }
    }
}
