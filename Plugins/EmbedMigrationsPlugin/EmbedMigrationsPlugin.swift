import Foundation
import PackagePlugin

/// Compiles the package's top-level `Migrations/*.sql` into the target as Swift source.
@main
struct EmbedMigrationsPlugin: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: Target) throws -> [Command] {
        let folder = context.package.directoryURL.appending(path: "Migrations")
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path())) ?? []
        let inputs = names.filter { $0.hasSuffix(".sql") }.sorted()
            .map { folder.appending(path: $0) }
        let output = context.pluginWorkDirectoryURL.appending(path: "EmbeddedMigrations.swift")
        return [
            .buildCommand(
                displayName: "Embedding \(inputs.count) migrations",
                executable: try context.tool(named: "EmbedMigrations").url,
                arguments: [output.path()] + inputs.map { $0.path() },
                inputFiles: inputs,
                outputFiles: [output]
            )
        ]
    }
}
