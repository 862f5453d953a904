// swift-tools-version:6.1
// Performance of OpenCoreData against the floor (SQLite's C API, prepared statements, one
// transaction) and the strongest Swift peer (GRDB.swift), in one run. Not built by
// `make test`: run it with `swift run -c release --package-path Benchmarks core-data-benchmarks`.
import Foundation
import PackageDescription

// A path dependency's identity is its directory name, which depends on where the
// repository was cloned; compute it instead of hard-coding it.
let rootPackageIdentity = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().lastPathComponent.lowercased()

let package = Package(
    name: "Benchmarks",
    platforms: [.macOS(.v14)],
    dependencies: [
        .package(path: ".."),
        .package(url: "https://github.com/groue/GRDB.swift", exact: "7.10.0"),
    ],
    targets: [
        .executableTarget(
            name: "core-data-benchmarks",
            dependencies: [
                .product(name: "OpenCoreData", package: rootPackageIdentity),
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "GRDBSQLite", package: "GRDB.swift"),
            ],
            path: "Sources/CoreDataBenchmarks",
            swiftSettings: [.swiftLanguageMode(.v5)]
        ),
        // Fetches translated to SQL against the same queries on SQLite's C API:
        // `swift run -c release --package-path Benchmarks fetch-benchmarks`.
        .executableTarget(
            name: "fetch-benchmarks",
            dependencies: [
                .product(name: "OpenCoreData", package: rootPackageIdentity),
                .product(name: "GRDBSQLite", package: "GRDB.swift"),
            ],
            path: "Sources/FetchBenchmarks",
            swiftSettings: [.swiftLanguageMode(.v5)]
        ),
        // The fetched results controller over 100,000 objects in 50 sections:
        // `swift run -c release --package-path Benchmarks frc-benchmarks`.
        .executableTarget(
            name: "frc-benchmarks",
            dependencies: [.product(name: "OpenCoreData", package: rootPackageIdentity)],
            path: "Sources/FetchedResultsBenchmarks",
            swiftSettings: [.swiftLanguageMode(.v5)]
        ),
        // A background import merged into the view context batch by batch:
        // `swift run -c release --package-path Benchmarks merge-benchmarks`.
        .executableTarget(
            name: "merge-benchmarks",
            dependencies: [.product(name: "OpenCoreData", package: rootPackageIdentity)],
            path: "Sources/MergeBenchmarks",
            swiftSettings: [.swiftLanguageMode(.v5)]
        ),
        // Object-graph work (relationships, cascades): `swift run -c release --package-path Benchmarks graph-benchmarks`.
        .executableTarget(
            name: "graph-benchmarks",
            dependencies: [
                .product(name: "OpenCoreData", package: rootPackageIdentity),
                .product(name: "GRDBSQLite", package: "GRDB.swift"),
            ],
            path: "Sources/GraphBenchmarks",
            swiftSettings: [.swiftLanguageMode(.v5)]
        ),
        // Lightweight migration of 100,000 rows against hand-written SQL:
        // `swift run -c release --package-path Benchmarks migration-benchmarks`.
        .executableTarget(
            name: "migration-benchmarks",
            dependencies: [
                .product(name: "OpenCoreData", package: rootPackageIdentity),
                .product(name: "GRDBSQLite", package: "GRDB.swift"),
            ],
            path: "Sources/MigrationBenchmarks",
            swiftSettings: [.swiftLanguageMode(.v5)]
        ),
        // An upsert of 10,000 objects (half stored) through a uniqueness constraint, against
        // INSERT … ON CONFLICT DO UPDATE: `swift run -c release --package-path Benchmarks upsert-benchmarks`.
        .executableTarget(
            name: "upsert-benchmarks",
            dependencies: [
                .product(name: "OpenCoreData", package: rootPackageIdentity),
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "GRDBSQLite", package: "GRDB.swift"),
            ],
            path: "Sources/UpsertBenchmarks",
            swiftSettings: [.swiftLanguageMode(.v5)]
        ),
    ]
)
