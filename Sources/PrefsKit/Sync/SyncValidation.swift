/// What a synced change must be to be pushed, stored by the hub or applied by a device: the
/// same rules on every side, so that one malformed change (from a device with a bug, a
/// hostile one, or a row written into the hub by hand) is refused on its own and never stops
/// anyone's round. The hub checks the same rules in SQL (`prefs_sync_problem`,
/// `Migrations/postgres/0006_sync_rules.sql`); `SyncValidationTests` holds both to one
/// corpus.
package enum SyncValidation {
    /// The largest value a change may carry, in bytes (text or data).
    package static let maximumValueBytes = 4 << 20
    /// The longest ident, in bytes: a tag's three names at the rulebook's longest, in hex.
    package static let maximumIdentBytes = 3 * (2 * 1024) + 2
    /// The longest device id in a clock.
    package static let maximumDeviceIDBytes = 64
    /// How far ahead of the hub's clock a change may be stamped, by default: 5 minutes.
    package static let defaultClockBoundMilliseconds: Int64 = 300_000
    /// The device's own bound on what it takes from a hub: a pulled clock moves the device's
    /// clock at most this far past the hub's (5 minutes, the default bound), whatever bound
    /// the hub says it keeps. A hub's number is information, not the device's setting: a
    /// hostile or misconfigured one saying 31 years moves no device's clock by them.
    package static let deviceClockBoundMilliseconds: Int64 = defaultClockBoundMilliseconds
    /// How far past its own wall clock a device believes the hub's clock (a day): a device
    /// whose clock is behind by less follows the clocks it pulls; a hub that says it is
    /// further ahead drags it no further.
    package static let maximumClockLagMilliseconds: Int64 = 86_400_000

    /// The newest clock a device takes from what it pulls: the hub's clock and its bound
    /// (what the hub itself would have taken), within the limits above.
    package static func clockCeiling(hubMilliseconds: Int64?, bound: Int64, wall: Int64) -> Int64 {
        let hub = min(hubMilliseconds ?? wall, wall + maximumClockLagMilliseconds)
        return hub + min(max(bound, 0), deviceClockBoundMilliseconds)
    }

    /// The fields of a bookmark that sync.
    package static var bookmarkFields: Set<String> { SyncFields.bookmarkNames }

    /// Why a change cannot be taken, in one line; nil when it can.
    package static func problem(with change: SyncChange) -> String? {
        guard strictClock(change.clock) != nil else {
            return "the clock '\(MessageText.shown(change.clock))' is not a hybrid clock reading"
        }
        guard change.ident.utf8.count <= maximumIdentBytes,
            let parts = SyncIdent.parts(change.ident)
        else { return "the ident is not hex-encoded names" }
        switch change.entity {
        case .preference:
            guard parts.count == 2 else { return "a preference's ident names a suite and a key" }
            guard change.field == "value" else {
                return "a preference has no field '\(shown(change.field))'"
            }
            do {
                try PreferenceStore.validate(suite: parts[0])
                try PreferenceStore.validate(key: parts[1])
            } catch {
                return error.description
            }
            guard change.present else {
                return change.value == nil ? nil : "a removal carries no value"
            }
            guard let value = change.value else { return "a preference's change carries a value" }
            do {
                try value.validateForStorage(key: parts[1])
            } catch {
                return error.description
            }
            if holdsNUL(value) { return nulProblem }
            return size(of: value) > maximumValueBytes ? "the value is too large" : nil
        case .bookmark:
            guard parts.count == 2 else { return "a bookmark's ident names a kind and an item ID" }
            if let problem = nameProblem(parts[0], "kind") ?? nameProblem(parts[1], "item ID") {
                return problem
            }
            guard bookmarkFields.contains(change.field) else {
                return "a bookmark has no field '\(shown(change.field))'"
            }
            return bookmarkFieldProblem(change)
        case .tag:
            guard parts.count == 3 else {
                return "a tag's ident names a kind, an item ID and a tag"
            }
            if let problem = nameProblem(parts[0], "kind") ?? nameProblem(parts[1], "item ID")
                ?? nameProblem(parts[2], "tag")
            {
                return problem
            }
            guard change.field == "present" else {
                return "a tag has no field '\(shown(change.field))'"
            }
            return change.value == nil ? nil : "a tag's change carries no value"
        }
    }

    /// A clock reading in its one spelling: 15 digits of milliseconds, 6 of counter, and a
    /// device id of lowercase letters and digits. Text of this shape orders as the clock does.
    package static func strictClock(_ text: String) -> HybridClock? {
        let bytes = Array(text.utf8)
        guard bytes.count >= 24, bytes.count <= 23 + maximumDeviceIDBytes,
            bytes[15] == UInt8(ascii: "-"), bytes[22] == UInt8(ascii: "-")
        else { return nil }
        let isDigit = { (byte: UInt8) in byte >= 0x30 && byte <= 0x39 }
        let isDeviceByte = { (byte: UInt8) in isDigit(byte) || (byte >= 0x61 && byte <= 0x7A) }
        guard bytes[0..<15].allSatisfy(isDigit), bytes[16..<22].allSatisfy(isDigit),
            bytes[23...].allSatisfy(isDeviceByte)
        else { return nil }
        return HybridClock(text)
    }

    /// A bookmark's kind, item ID, tag or folder name: not blank, no control characters.
    private static func nameProblem(_ name: String, _ noun: String) -> String? {
        if name.allSatisfy(\.isWhitespace) { return "a bookmark's \(noun) cannot be empty" }
        if name.containsControlCharacter {
            return "a bookmark's \(noun) cannot contain control characters"
        }
        return nil
    }

    private static func bookmarkFieldProblem(_ change: SyncChange) -> String? {
        if change.field == SyncFields.bookmarkRemoved, !change.present {
            return "a bookmark's removal is present"
        }
        if change.field == SyncFields.bookmarkExists || change.field == SyncFields.bookmarkRemoved
            || !change.present
        {
            return change.value == nil
                ? nil : "the bookmark field '\(change.field)' carries no value"
        }
        switch (change.field, change.value) {
        case ("position", .int(let position)?):
            return position >= 0 && position <= Int(Int32.max)
                ? nil : "the position is out of range"
        case ("position", _):
            return "a bookmark's position is an integer"
        case (_, nil):
            // A folder is read when pushed: nil for a bookmark gone meanwhile.
            return nil
        case (let field, .string(let text)?):
            if text.utf8.count > maximumValueBytes { return "the \(field) is too large" }
            if text.utf8.contains(0) { return nulProblem }
            switch field {
            case "folder":
                guard text.isEmpty || text.utf8.count <= maximumValueBytes,
                    let names = text.isEmpty ? [] : SyncIdent.parts(text)
                else { return "a bookmark's folder is hex-encoded names" }
                for name in names {
                    if let problem = nameProblem(name, "folder name") { return problem }
                }
                return nil
            case "category":
                return text.containsControlCharacter
                    ? "a bookmark's category cannot contain control characters" : nil
            case "title":
                return text.containsControlCharacter
                    ? "a bookmark's title cannot contain control characters" : nil
            default:
                return nil
            }
        case (let field, _):
            return "a bookmark's \(field) is text"
        }
    }

    /// Why text with a NUL character is refused: the hub's text (PostgreSQL's) cannot hold
    /// one, so it would fail the whole push of the device for good; refused alone, the rest
    /// of the device's changes go on. It stays on the device.
    package static let nulProblem =
        "text with a NUL character (U+0000) cannot be synced: the hub's text cannot hold it"

    /// Whether a value holds text with a NUL character anywhere (a dictionary's keys too).
    private static func holdsNUL(_ value: PreferenceValue) -> Bool {
        switch value {
        case .string(let text), .json(let text): text.utf8.contains(0)
        case .url(let url): url.absoluteString.utf8.contains(0)
        case .array(let elements): elements.contains(where: holdsNUL)
        case .dictionary(let entries):
            entries.contains { $0.key.utf8.contains(0) || holdsNUL($0.value) }
        default: false
        }
    }

    /// The bytes a value takes, as far as the limit needs to know.
    private static func size(of value: PreferenceValue) -> Int {
        switch value {
        case .string(let text), .json(let text): text.utf8.count
        case .url(let url): url.absoluteString.utf8.count
        case .data(let data): data.count
        case .array(let elements): elements.reduce(0) { $0 + size(of: $1) }
        case .dictionary(let entries):
            entries.reduce(0) { $0 + $1.key.utf8.count + size(of: $1.value) }
        default: 8
        }
    }

    private static func shown(_ text: String) -> String { MessageText.shown(text) }
}
