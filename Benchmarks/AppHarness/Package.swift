// swift-tools-version:6.0
// A second harness: an app's-eye view of PrefsKit, in a package of its own that depends on
// prefs by path, with PrefsKit's default options and nothing benchmark-only; next to it,
// the raw C baseline prefs-bench uses (CRawSQLite, the same statements and pragmas).
import PackageDescription

let package = Package(
    name: "prefs-app-harness",
    platforms: [.macOS(.v15)],
    dependencies: [.package(path: "../../.build/app-harness/prefs")],
    targets: [
        .executableTarget(
            name: "AppHarness",
            dependencies: [
                .product(name: "PrefsKit", package: "prefs"),
                .product(name: "PrefsBenchmarkBaseline", package: "prefs"),
            ])
    ]
)
