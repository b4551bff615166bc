#if canImport(FoundationEssentials) && !PREFS_FULL_FOUNDATION
    import FoundationEssentials
#else
    import Foundation
#endif

/// A change that sync refused: one this device pushed and the hub would not take, or one
/// it pulled and could not apply. Each is refused alone; the rest of its round went on.
public struct SyncRefusal: Sendable, Hashable {
    /// Which way the change was going.
    public enum Direction: String, Sendable, Hashable {
        /// Pushed by this device; the hub refused it.
        case push
        /// Pulled from the hub; this device refused it.
        case pull
    }

    /// Which way the change was going.
    public var direction: Direction
    /// What the change was for, as far as it can be read (`preference SUITE KEY`,
    /// `bookmark KIND/ITEM FIELD`, `tag KIND/ITEM TAG`), with anything a terminal would act on
    /// escaped: the names may be why it was refused.
    public var subject: String
    /// Its clock, as it came (escaped as the subject is).
    public var clock: String
    /// Why, in one line.
    public var reason: String
    /// When this device recorded it.
    public var recordedAt: Date

    /// The subject of a change as a person reads it.
    static func subject(entity: String, ident: String, field: String) -> String {
        guard let names = SyncIdent.parts(ident)?.map(MessageText.escaped) else {
            return MessageText.shown("\(entity) \(ident) \(field)")
        }
        switch (entity, names.count) {
        case ("preference", 2): return "preference \(names[0]) \(names[1])"
        case ("bookmark", 2): return "bookmark \(names[0])/\(names[1]) \(MessageText.shown(field))"
        case ("tag", 3): return "tag \(names[0])/\(names[1]) \(names[2])"
        default:
            return MessageText.shown("\(entity) \(names.joined(separator: " ")) \(field)")
        }
    }
}
