import PrefsKit
import PrefsSync

/// `prefs sync name [NAME]`: names this device, so that conflict listings on the account's
/// devices say which device lost or won; without a name, prints this device's.
struct SyncNameCommand: RunnableCommand {
    static var name: String { "name" }
    static let deviceName = OptionalArgument<String>(
        "name", help: "The device's name: 1 to 64 code points (default: print the name).")
    static let clear = Flag("clear", help: "Take the device's name away.")
    static let spec = CommandSpec(
        Self.self, abstract: "Name this device for the account's conflict listings.",
        discussion: """
            The name reaches the hub at this device's next round, and the account's other
            devices show it in 'prefs sync conflicts' from their next round on.
            """,
        arguments: [deviceName.spec], options: [clear.spec], scope: .sync)

    var deviceName: String?
    var clear = false

    func run(_ context: CommandContext) throws {
        guard deviceName != nil || clear else {
            guard let database = try context.openForReading(),
                let name = try DeviceSync.name(of: database)
            else {
                throw CommandFailure("This device has no name", exitCode: CommandFailure.notFound)
            }
            if context.globals.isJSON {
                context.printJSON(.object([("name", .string(name))]))
            } else {
                context.console.print(ValueText.listed(name) + "\n")
            }
            return
        }
        if clear, deviceName != nil {
            throw CommandFailure(
                "Give a name or --clear, not both", exitCode: CommandFailure.usage)
        }
        // Read first: a file that does not sync (or is not there) is left as it is.
        guard let reader = try context.openForReading(), try DeviceSync.status(of: reader) != nil
        else {
            throw CommandFailure(
                "This database does not sync yet: name the device after its first round",
                exitCode: CommandFailure.notFound)
        }
        try DeviceSync.setName(deviceName, of: try context.openForWriting())
        context.inform(
            deviceName == nil
                ? "The device's name is taken away at its next round"
                : "Named; the hub learns the name at this device's next round")
    }
}

extension SyncNameCommand {
    init(parsing parsed: ParsedArguments) throws(UsageError) {
        self.init(deviceName: try parsed[Self.deviceName], clear: parsed[Self.clear])
    }
}
