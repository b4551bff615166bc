import Foundation
import PackagePlugin

/// Compiles the package's top-level `Migrations/*.sql` (the SQLite schema) into PrefsKit, and
/// `Migrations/postgres/*.sql` (the PostgreSQL one) into PrefsPostgreSQL, as Swift source.
@main
struct EmbedMigrationsPlugin: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: Target) throws -> [Command] {
        let folder = context.package.directoryURL.appending(path: "Migrations")
        func files(in folder: URL) -> [URL] {
            let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path())) ?? []
            // Migrations only (NNNN_description.sql): current.sql, beside them, is what they make.
            return names.filter { $0.hasSuffix(".sql") && $0.first?.isNumber == true }.sorted().map
            { folder.appending(path: $0) }
        }
        let isPostgres = target.name == "PrefsPostgreSQL"
        let inputs = isPostgres ? files(in: folder.appending(path: "postgres")) : files(in: folder)
        let output = context.pluginWorkDirectoryURL.appending(path: "EmbeddedMigrations.swift")
        return [
            .buildCommand(
                displayName: "Embedding \(inputs.count) migrations",
                executable: try context.tool(named: "EmbedMigrations").url,
                arguments: [output.path()] + (isPostgres ? ["--postgres"] : [])
                    + inputs.map { $0.path() },
                inputFiles: inputs,
                outputFiles: [output]
            )
        ]
    }
}
