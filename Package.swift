// swift-tools-version:6.0
import PackageDescription

/// peerd: peer-to-peer LAN discovery and session daemon.
///
/// Layers, bottom up: C shims (`CAvahi`, `CSodium`), pure logic (`PeerCore`,
/// no I/O), the I/O layer (`PeerIO`: syscalls, sockets, the Avahi bridge,
/// crypto), and the thin executables `peerd` and `peerctl`.
let strict: [SwiftSetting] = [
    .swiftLanguageMode(.v6),
    .enableUpcomingFeature("ExistentialAny"),
]

let package = Package(
    name: "peerd",
    products: [
        .executable(name: "peerd", targets: ["peerd"]),
        .executable(name: "peerctl", targets: ["peerctl"]),
        .executable(name: "peerprobe", targets: ["peerprobe"]),
    ],
    targets: [
        .systemLibrary(
            name: "CAvahi",
            pkgConfig: "avahi-client",
            providers: [.apt(["libavahi-client-dev"])]
        ),
        .systemLibrary(
            name: "CSodium",
            pkgConfig: "libsodium",
            providers: [.apt(["libsodium-dev"])]
        ),
        // glibc's malloc.h (mallopt, malloc_trim): memory goes back after bulk work.
        .systemLibrary(name: "CMalloc"),
        .target(name: "PeerCore", swiftSettings: strict),
        .target(name: "PeerIO", dependencies: ["PeerCore", "CAvahi", "CSodium", "CMalloc"], swiftSettings: strict),
        .executableTarget(name: "peerd", dependencies: ["PeerCore", "PeerIO"], swiftSettings: strict),
        .executableTarget(name: "peerctl", dependencies: ["PeerCore", "PeerIO"], swiftSettings: strict),
        // A hostile peer for the lab tests (Tests/integration/hostile_tests.sh).
        .executableTarget(name: "peerprobe", dependencies: ["PeerCore", "PeerIO"], swiftSettings: strict),
        .testTarget(name: "PeerCoreTests", dependencies: ["PeerCore"], swiftSettings: strict),
        .testTarget(name: "PeerIOTests", dependencies: ["PeerCore", "PeerIO"], exclude: ["Fixtures"], swiftSettings: strict),
    ]
)
