import Foundation
import TestSupport
import Testing

/// systemd's own checker of units, where installed.
private let systemdAnalyzer = ["/usr/bin/systemd-analyze", "/bin/systemd-analyze"].first {
    FileManager.default.isExecutableFile(atPath: $0)
}

/// docs/deploy.md's systemd unit for `prefs-server`, as written there: systemd reads it
/// without a complaint, and its hardening leaves little exposed. (Starting it needs systemd
/// as the machine's init, which the tests do not have. The static file's pass of `.ci/run`
/// leaves the suite out by its name: that build has no prefs-server.)
@Suite(.enabled(if: systemdAnalyzer != nil, "systemd-analyze is needed"))
struct SyncServerSystemdUnitTests {

    static let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// The block of docs/deploy.md that starts with `[Unit]`.
    static func documentedUnit() throws -> String {
        let page = try String(
            contentsOf: root.appendingPathComponent("docs/deploy.md"), encoding: .utf8)
        let blocks = page.components(separatedBy: "```ini\n").dropFirst()
        guard
            let block = blocks.first(where: { $0.hasPrefix("[Unit]") }),
            let unit = block.components(separatedBy: "```").first
        else { throw PostgresServerError("docs/deploy.md has no systemd unit") }
        return unit
    }

    @Test func theDocumentedUnitVerifiesAndExposesLittle() throws {
        let analyzer = try #require(systemdAnalyzer)
        var unit = try Self.documentedUnit()
        for setting in [
            "DynamicUser=yes", "ProtectSystem=strict", "NoNewPrivileges=yes", "ProtectHome=yes",
            "LoadCredential=pgpass:", "ExecStart=/usr/local/bin/prefs-server ",
        ] {
            #expect(unit.contains(setting), "the unit lacks \(setting)")
        }
        #expect(!unit.contains("PREFS_HUB=postgresql://sync_server:"), "a password in the unit")
        // The binary where the page installs it is this build's.
        unit = unit.replacingOccurrences(
            of: "/usr/local/bin/prefs-server", with: SyncServerProcess.executable.path)
        let folder = try TemporaryFolder()
        let file = folder.path("prefs-server@8081.service")
        try unit.write(toFile: file, atomically: true, encoding: .utf8)

        let verified = try runProcess(
            URL(fileURLWithPath: analyzer), ["verify", "--man=no", file])
        #expect(verified.status == 0, "\(verified.stderr)")
        #expect(
            verified.stderr.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty,
            "\(verified.stderr)")

        let security = try runProcess(
            URL(fileURLWithPath: analyzer), ["security", "--offline=yes", "--no-pager", file])
        #expect(security.status == 0, "\(security.stderr)")
        let overall = (security.stdout + security.stderr).components(separatedBy: "\n")
            .first { $0.contains("Overall exposure level") }
        let level = overall?.components(separatedBy: ": ").last?
            .components(separatedBy: " ").first.flatMap(Double.init)
        let exposure = try #require(level, "no exposure level in: \(security.stdout)")
        #expect(exposure < 2.0, "\(overall ?? "")")
    }
}
