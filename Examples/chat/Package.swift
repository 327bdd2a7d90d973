// swift-tools-version:6.0
import PackageDescription

/// A terminal chat room on peerd (issue 24): app `chat`, built on PeerKit
/// the way any program outside this repository would, with a plain
/// path dependency.
let package = Package(
    name: "chat",
    dependencies: [.package(name: "peerd", path: "../..")],
    targets: [
        .executableTarget(name: "chat", dependencies: [.product(name: "PeerKit", package: "peerd")],
                          swiftSettings: [.swiftLanguageMode(.v6)]),
    ]
)
