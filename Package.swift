// swift-tools-version:6.0
import PackageDescription

/// peerd: peer-to-peer LAN discovery and session daemon.
///
/// Layers, bottom up: C shims (`CAvahi`, `CSodium`), pure logic (`PeerCore`,
/// no I/O), the plain-syscall layer (`PeerSystem`: descriptors, typed
/// syscalls, the control client), the I/O layer (`PeerIO`: sockets, the Avahi
/// bridge, crypto, the daemon's components), and the thin executables `peerd`
/// and `peerctl` (which needs only PeerSystem: no libavahi, no libsodium).
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
        .executable(name: "peerbench", targets: ["peerbench"]),
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
        // renameat2 with RENAME_NOREPLACE: a received file never overwrites one.
        .systemLibrary(name: "CFiles"),
        // epoll: peerd watches descriptors itself (PeerIO/Poll), not through Dispatch sources.
        .systemLibrary(name: "CPoll"),
        .target(name: "PeerCore", swiftSettings: strict),
        .target(name: "PeerSystem", dependencies: ["PeerCore", "CFiles", "CPoll"], swiftSettings: strict),
        .target(name: "PeerIO", dependencies: ["PeerCore", "PeerSystem", "CAvahi", "CSodium", "CMalloc"], swiftSettings: strict),
        .executableTarget(name: "peerd", dependencies: ["PeerCore", "PeerIO"], swiftSettings: strict),
        .executableTarget(name: "peerctl", dependencies: ["PeerCore", "PeerSystem"], swiftSettings: strict),
        // A hostile peer for the lab tests (Tests/integration/hostile_tests.sh).
        .executableTarget(name: "peerprobe", dependencies: ["PeerCore", "PeerIO"], swiftSettings: strict),
        // The benchmarks of issue 13 (`make bench`), and their probes.
        .executableTarget(name: "peerbench", dependencies: ["PeerCore", "PeerSystem"], swiftSettings: strict),
        .testTarget(name: "PeerCoreTests", dependencies: ["PeerCore"], swiftSettings: strict),
        .testTarget(name: "PeerIOTests", dependencies: ["PeerCore", "PeerSystem", "PeerIO"], exclude: ["Fixtures"], swiftSettings: strict),
    ]
)
