// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "prefs",
    // The floors are Synchronization's Mutex and Atomic (macOS 15, iOS 18, tvOS 18, watchOS
    // 11, visionOS 2); Observation needs less (macOS 14, iOS 17, tvOS 17, watchOS 10).
    platforms: [.macOS(.v15), .iOS(.v18), .tvOS(.v18), .watchOS(.v11), .visionOS(.v2)],
    products: [
        // The store on a SQLite file: what an app on any platform links.
        .library(name: "PrefsKit", targets: ["PrefsKit"]),
        // A device's sync with a hub: DeviceSync, the merge, and the protocol's wire types
        // and HTTP client over a transport the app chooses (PrefsHTTPSync, or the command
        // line's libcurl). An app that does not sync links PrefsKit alone and carries none
        // of it.
        .library(name: "PrefsSync", targets: ["PrefsSync"]),
        // The same store on a PostgreSQL server, the sync hub, and a device's direct sync
        // with it (Linux and macOS: where libpq is).
        .library(name: "PrefsPostgreSQL", targets: ["PrefsPostgreSQL"]),
        // Browsers' bookmark files (Netscape HTML, Chromium, Firefox, Safari), for apps that
        // import them: PrefsKit alone does not carry their parsers.
        .library(name: "PrefsInterchange", targets: ["PrefsInterchange"]),
        // Sync through a sync server (prefs-server) over HTTPS with URLSession: what an app
        // on iOS links to sync (FoundationNetworking on Linux).
        .library(name: "PrefsHTTPSync", targets: ["PrefsHTTPSync"]),
        .executable(name: "prefs", targets: ["prefs"]),
        // The sync protocol over HTTP in front of a PostgreSQL hub, and its device tokens
        // (docs/sync-protocol.md, docs/deploy.md).
        .executable(name: "prefs-server", targets: ["prefs-server"]),
        // The raw C baseline of the benchmarks, for the second harness
        // (Benchmarks/AppHarness, a package of its own that depends on this one).
        .library(name: "PrefsBenchmarkBaseline", targets: ["CRawSQLite"]),
    ],
    targets: [
        .systemLibrary(
            name: "CSQLite",
            pkgConfig: "sqlite3",
            providers: [.apt(["libsqlite3-dev"]), .brew(["sqlite"])]
        ),
        .target(name: "SQLiteCore", dependencies: ["CSQLite"]),
        // libpq, loaded when a server is first named (dlopen), not linked: see
        // Sources/CLibPQ/include/libpq_loader.h.
        .target(
            name: "CLibPQ",
            linkerSettings: [.linkedLibrary("dl", .when(platforms: [.linux]))]),
        .target(name: "PostgresCore", dependencies: ["CLibPQ"]),
        // libpq linked as usual, for the benchmarks' raw C programs only.
        .systemLibrary(
            name: "CLibPQLinked", path: "Benchmarks/CLibPQLinked",
            pkgConfig: "libpq",
            providers: [.apt(["libpq-dev"]), .brew(["libpq"])]
        ),
        .executableTarget(name: "EmbedMigrations"),
        .plugin(
            name: "EmbedMigrationsPlugin",
            capability: .buildTool(),
            dependencies: ["EmbedMigrations"]
        ),
        .target(name: "PrefsKit", dependencies: ["SQLiteCore"], plugins: ["EmbedMigrationsPlugin"]),
        .target(name: "PrefsSync", dependencies: ["PrefsKit"]),
        .target(
            name: "PrefsPostgreSQL", dependencies: ["PrefsKit", "PrefsSync", "PostgresCore"],
            plugins: ["EmbedMigrationsPlugin"]),
        // libcurl, loaded when a sync server is first named (dlopen), not linked: see
        // Sources/CCurl/include/prefs_curl.h.
        .target(
            name: "CCurl", linkerSettings: [.linkedLibrary("dl", .when(platforms: [.linux]))]),
        // GNU libmicrohttpd (Debian: libmicrohttpd-dev), with the C-only parts of its use, and
        // zlib for compressed bodies.
        .target(
            name: "CMicroHTTPD",
            linkerSettings: [.linkedLibrary("microhttpd"), .linkedLibrary("z")]),
        // What the sync server does with a request: the route table, the middleware, the
        // handlers, libmicrohttpd's daemon; the hub's pool, listener and tokens are
        // PrefsPostgreSQL's.
        .target(
            name: "PrefsSyncServer",
            dependencies: ["PrefsKit", "PrefsSync", "PrefsPostgreSQL", "PrefsTool", "CMicroHTTPD"]),
        // What both command-line tools share: the sysexits codes and the code of each of the
        // library's errors.
        .target(name: "PrefsTool", dependencies: ["PrefsKit"]),
        .executableTarget(
            name: "prefs-server",
            dependencies: [
                "PrefsKit", "PrefsSync", "PrefsPostgreSQL", "PrefsSyncServer", "PrefsTool",
            ],
            path: "Sources/PrefsServer"),
        .target(name: "PrefsHTTPSync", dependencies: ["PrefsKit", "PrefsSync"]),
        .target(name: "PrefsInterchange", dependencies: ["PrefsKit", "SQLiteCore"]),
        .target(
            name: "PrefsCommandLine",
            dependencies: [
                "PrefsKit", "PrefsSync", "PrefsPostgreSQL", "PrefsInterchange", "PrefsTool",
                "CCurl",
            ]),
        // The release build of the tool on Linux links Swift's runtime and libraries in
        // (the system's libc, libstdc++ and libsqlite3 stay shared): loading and binding a
        // dozen of the toolchain's shared objects was most of a short command's time
        // (Benchmarks/README.md, "The default build's start-up"). Its modules are compiled
        // against the shared SDK, whose link lists lack FoundationEssentials' two static
        // helpers: named here. Debug builds and other platforms link as usual; products
        // that other packages use (PrefsKit, PrefsInterchange) carry no such flag.
        .executableTarget(
            name: "prefs", dependencies: ["PrefsCommandLine"],
            linkerSettings: [
                .unsafeFlags(
                    [
                        "-static-stdlib", "-Xlinker", "-l_FoundationCollections", "-Xlinker",
                        "-l_FoundationCShims",
                    ], .when(platforms: [.linux], configuration: .release))
            ]),
        .target(
            name: "CRawSQLite", path: "Benchmarks/CRawSQLite",
            linkerSettings: [.linkedLibrary("sqlite3")]),
        .executableTarget(
            name: "prefs-cget", path: "Benchmarks/CGetPrint",
            linkerSettings: [.linkedLibrary("sqlite3")]),
        .executableTarget(
            name: "prefs-cset", path: "Benchmarks/CSet",
            linkerSettings: [.linkedLibrary("sqlite3")]),
        .executableTarget(
            name: "prefs-swift-get", dependencies: ["CSQLite"], path: "Benchmarks/SwiftGetPrint"),
        .target(
            name: "CRawLibPQ", dependencies: ["CLibPQLinked"], path: "Benchmarks/CRawLibPQ",
            linkerSettings: [.linkedLibrary("pq")]),
        .executableTarget(
            name: "prefs-bench",
            dependencies: [
                "PrefsKit", "PrefsSync", "PrefsPostgreSQL", "PrefsInterchange", "PrefsCommandLine",
                "CRawSQLite",
                "CRawLibPQ", "TestSupport",
            ],
            path: "Benchmarks/PrefsBench"),
        .executableTarget(
            name: "prefs-idle-observer", dependencies: ["PrefsKit"], path: "Benchmarks/IdleObserver"
        ),
        .executableTarget(
            name: "tour", dependencies: ["PrefsKit", "PrefsInterchange"], path: "Examples/Tour"),
        // The reference app: its model layer (every platform), its SwiftUI screens (where
        // SwiftUI exists; empty elsewhere), and the check that drives the model on Linux.
        .target(
            name: "ReferenceAppModel", dependencies: ["PrefsKit"],
            path: "Examples/ReferenceApp/Model"),
        .target(
            name: "ReferenceAppViews", dependencies: ["ReferenceAppModel", "PrefsKit"],
            path: "Examples/ReferenceApp/Views"),
        .executableTarget(
            name: "reference-app-check", dependencies: ["ReferenceAppModel", "PrefsKit"],
            path: "Examples/ReferenceApp/Check"),
        .target(name: "TestSupport", path: "Tests/TestSupport"),
        // What the suites of several modules share: the keys and types of the store's
        // tests, a prefs database on the test server, and the route the sync suites reach
        // their hub by.
        .target(
            name: "PrefsTestSupport",
            dependencies: ["PrefsKit", "PrefsPostgreSQL", "TestSupport"],
            path: "Tests/PrefsTestSupport"),
        .target(
            name: "CCrashVFS", path: "Tests/CrashVFS",
            linkerSettings: [.linkedLibrary("sqlite3")]),
        .target(
            name: "PrefsFuzzing",
            dependencies: ["PrefsKit", "PrefsInterchange", "PrefsCommandLine"],
            path: "Tests/Fuzz/PrefsFuzzing"),
        .executableTarget(
            name: "prefs-fuzz", dependencies: ["PrefsFuzzing"], path: "Tests/Fuzz/PrefsFuzz"),
        .executableTarget(
            name: "prefs-stress", dependencies: ["PrefsKit", "PrefsSync", "PrefsPostgreSQL"],
            path: "Tests/Helpers/PrefsStress"),
        .testTarget(
            name: "ReliabilityTests",
            dependencies: [
                "SQLiteCore", "TestSupport", "PrefsFuzzing", "prefs", "prefs-stress", "CCrashVFS",
                "PrefsCommandLine", "PrefsSync",
            ]),
        .testTarget(name: "SQLiteCoreTests", dependencies: ["SQLiteCore"]),
        .testTarget(
            name: "PrefsSyncServerTests",
            dependencies: [
                "PrefsSyncServer", "PrefsSync", "PrefsKit", "PrefsPostgreSQL", "PrefsHTTPSync",
                "TestSupport",
            ]),
        // The engine contract runs on every engine, so the store's tests reach PostgreSQL.
        .testTarget(
            name: "PrefsKitTests",
            dependencies: [
                "PrefsKit", "PrefsSync", "PrefsPostgreSQL", "PrefsInterchange", "SQLiteCore",
                "TestSupport", "PrefsTestSupport", "prefs",
            ]),
        .testTarget(
            name: "PrefsInterchangeTests",
            dependencies: [
                "PrefsInterchange", "PrefsKit", "SQLiteCore", "TestSupport", "PrefsTestSupport",
            ]),
        .testTarget(
            name: "PrefsPostgreSQLTests",
            dependencies: [
                "PrefsPostgreSQL", "PrefsKit", "PrefsSync", "PostgresCore", "TestSupport",
                "PrefsTestSupport",
            ]),
        .testTarget(
            name: "PrefsSyncTests",
            dependencies: [
                "PrefsSync", "PrefsKit", "PrefsPostgreSQL", "PrefsHTTPSync", "SQLiteCore",
                "PostgresCore", "TestSupport", "PrefsTestSupport", "prefs", "prefs-server",
            ]),
        .testTarget(
            name: "PrefsCommandLineTests",
            dependencies: [
                "PrefsCommandLine", "PrefsKit", "PrefsSync", "PrefsPostgreSQL", "SQLiteCore",
                "TestSupport",
                "prefs", "prefs-server",
            ]),
    ],
    swiftLanguageModes: [.v6]
)
