// swift-tools-version:6.1
import CompilerPluginSupport
import Foundation
import PackageDescription

let package = Package(
    name: "OpenCoreData",
    platforms: [.macOS(.v14)],
    products: [
        // Dynamic so that chapter programs, compiled by the workbook with plain swiftc,
        // can link the same library build the tests use.
        .library(name: "OpenCoreData", type: .dynamic, targets: ["OpenCoreData"]),
        .library(name: "WorkbookKit", targets: ["WorkbookKit"]),
        .executable(name: "workbook", targets: ["workbook"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/swiftlang/swift-syntax", exact: "602.0.0"),
    ],
    targets: [
        .systemLibrary(
            name: "CSQLite",
            pkgConfig: "sqlite3",
            providers: [.apt(["libsqlite3-dev"])]
        ),
        .systemLibrary(
            name: "CCMark",
            pkgConfig: "libcmark",
            providers: [.apt(["libcmark-dev"])]
        ),
        .target(name: "Digest"),
        // A C declaration of a Swift runtime function (swift_tryRetain) for ObjectRegistry.
        .target(name: "CSwiftRuntime"),
        .macro(
            name: "OpenCoreDataMacros",
            dependencies: [
                .product(name: "SwiftSyntax", package: "swift-syntax"),
                .product(name: "SwiftSyntaxMacros", package: "swift-syntax"),
                .product(name: "SwiftCompilerPlugin", package: "swift-syntax"),
                .product(name: "SwiftDiagnostics", package: "swift-syntax"),
            ]
        ),
        .target(
            name: "OpenCoreData",
            dependencies: ["CSQLite", "CSwiftRuntime", "Digest", "OpenCoreDataMacros"],
            exclude: ["LinuxDifferences.md"],
            // Core Data predates Swift concurrency: contexts serialize access through
            // their queues (perform/performAndWait), not through Sendable checking.
            swiftSettings: [.swiftLanguageMode(.v5)]
        ),
        .target(
            name: "WorkbookKit",
            dependencies: [
                "CCMark",
                "Digest",
                .product(name: "SwiftSyntax", package: "swift-syntax"),
                .product(name: "SwiftParser", package: "swift-syntax"),
                .product(name: "SwiftIDEUtils", package: "swift-syntax"),
            ]
        ),
        .executableTarget(
            name: "workbook",
            dependencies: [
                "WorkbookKit",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        .testTarget(name: "DigestTests", dependencies: ["Digest"]),
        // The child process of the crash test: saves in a loop until it is killed.
        .executableTarget(
            name: "CrashTestWriter",
            dependencies: ["OpenCoreData"],
            path: "Tests/CrashTestWriter",
            swiftSettings: [.swiftLanguageMode(.v5)]
        ),
        .testTarget(
            name: "OpenCoreDataTests",
            dependencies: ["OpenCoreData", "CSQLite"],
            resources: [.copy("Fixtures")],
            swiftSettings: [.swiftLanguageMode(.v5)]
        ),
        .testTarget(
            name: "OpenCoreDataMacrosTests",
            dependencies: [
                "OpenCoreDataMacros",
                .product(name: "SwiftSyntaxMacrosTestSupport", package: "swift-syntax"),
            ]
        ),
        .testTarget(
            name: "WorkbookKitTests",
            dependencies: ["WorkbookKit"],
            resources: [.copy("Fixtures")]
        ),
        // Verifies every chapter in Chapters/ against the library build in .build/.
        .testTarget(name: "ChapterTests", dependencies: ["WorkbookKit"]),
    ]
)

// `make tsan` compiles everything again under ThreadSanitizer in its own scratch path. Its
// tests need only the library, its macros and the library's tests; without the workbook (and
// its own build of swift-syntax's parser) and the macro tests (which make SwiftPM build every
// test target a second time, for the host), that build is about half as large.
if ProcessInfo.processInfo.environment["OPENCOREDATA_LIBRARY_ONLY"] == "1" {
    let libraryTargets: Set<String> = [
        "CSQLite", "CSwiftRuntime", "Digest", "OpenCoreDataMacros", "OpenCoreData", "OpenCoreDataTests",
    ]
    package.targets.removeAll { !libraryTargets.contains($0.name) }
    package.products.removeAll { $0.name != "OpenCoreData" }
    package.dependencies.removeAll {
        if case .sourceControl(_, let location, _) = $0.kind { return location.hasSuffix("swift-argument-parser") }
        return false
    }
}
