// swift-tools-version:6.0
import PackageDescription

/// peerd: peer-to-peer LAN discovery and session daemon.
///
/// Layers, bottom up (docs/architecture.md has the arrows): C shims
/// (`CAvahi`, `CSodium`, `CCrypto`, …), the control protocol's types (`PeerProtocol`),
/// the daemon's pure rules (`PeerCore`, no I/O), the tools' pure logic
/// (`PeerTools`: peerctl's and peerbench's), the plain-syscall layer
/// (`PeerSystem`: descriptors, typed syscalls, the control client), the I/O
/// layer (`PeerCrypto`: Noise, the ciphers and hashes on libsodium and
/// libcrypto, the identity key; `PeerIO`: sockets, the Avahi bridge, the
/// daemon's components), and the thin executables `peerd` and `peerctl` (which needs
/// no libavahi and no libsodium).
let strict: [SwiftSetting] = [
    .swiftLanguageMode(.v6),
    .enableUpcomingFeature("ExistentialAny"),
]

/// PeerCore's declarations are `package`, and the session path in PeerIO
/// calls its codecs and machines for every frame. Swift inlines across
/// modules only what it may see into: `public` bodies by default, `package`
/// bodies only with package CMO, which needs library evolution and
/// non-resilient access (no client outside this package exists, so
/// evolution costs nothing here). Without it, peerbench's channel message
/// rate fell 20-24% (docs/architecture.md, "Access").
let packageInlining: [SwiftSetting] = [
    // Release only: a debug build inlines nothing, and its quick module
    // emission conflicts with non-resilient access.
    .unsafeFlags(["-enable-library-evolution", "-Xfrontend", "-allow-non-resilient-access", "-Xfrontend", "-package-cmo",
                  "-no-emit-module-separately-wmo"],
                 .when(configuration: .release)),
]

let package = Package(
    name: "peerd",
    products: [
        .executable(name: "peerd", targets: ["peerd"]),
        .executable(name: "peerctl", targets: ["peerctl"]),
        .executable(name: "peerd-agent", targets: ["peerd-agent"]),
        .executable(name: "peerd-gtk", targets: ["peerd-gtk"]),
        .executable(name: "peerprobe", targets: ["peerprobe"]),
        .executable(name: "peerbench", targets: ["peerbench"]),
        // The client library apps build on (issue 24): no libavahi, no libsodium.
        .library(name: "PeerKit", targets: ["PeerKit"]),
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
        // OpenSSL's libcrypto: the session's ChaCha20-Poly1305 on large frames
        // (issue 25: its AVX-512 code is the fastest Debian packages). Its
        // headers only: the shim opens libcrypto at the first large frame.
        // (No pkgConfig: it would link libcrypto; the headers are in /usr/include,
        // from libssl-dev, which make deps installs.)
        .systemLibrary(name: "CCrypto"),
        // glibc's malloc.h (mallopt, malloc_trim): memory goes back after bulk work.
        .systemLibrary(name: "CMalloc"),
        // renameat2 with RENAME_NOREPLACE: a received file never overwrites one.
        .systemLibrary(name: "CFiles"),
        // epoll: peerd watches descriptors itself (PeerIO/Poll), not through Dispatch sources.
        .systemLibrary(name: "CPoll"),
        // recvmmsg and sendmmsg: the datagram path moves many datagrams a system call.
        .systemLibrary(name: "CSockets"),
        // sd-bus (libsystemd-dev): the desktop agent's D-Bus (issue 45).
        .systemLibrary(name: "CSystemd"),
        // ldns (libldns-dev): wide-area DNS-SD's queries and signed updates (issue 46).
        .systemLibrary(name: "CLDNS", pkgConfig: "ldns", providers: [.apt(["libldns-dev"])]),
        // GTK 4 and libadwaita (libgtk-4-dev, libadwaita-1-dev): the desktop app (issue 45).
        .systemLibrary(name: "CGtk", pkgConfig: "libadwaita-1"),
        // The control protocol's types (docs/control-protocol.md): the daemon and every client use them.
        .target(name: "PeerProtocol", swiftSettings: strict),
        .target(name: "PeerCore", dependencies: ["PeerProtocol"], swiftSettings: strict + packageInlining),
        // The pure logic of the command-line tools: peerctl's parsing, help,
        // rendering, top and doctor, and peerbench's tables.
        .target(name: "PeerTools", dependencies: ["PeerProtocol"], swiftSettings: strict),
        .target(name: "PeerSystem", dependencies: ["PeerProtocol", "CFiles", "CPoll", "CSockets"], swiftSettings: strict),
        // The client library: the control protocol from Swift, MultipeerConnectivity's shape.
        .target(name: "PeerKit", dependencies: ["PeerProtocol", "PeerSystem"], swiftSettings: strict),
        // Noise, the ciphers and the hashes: a target of its own, so the
        // fuzz harnesses build it without the rest of the I/O layer, and
        // package CMO as for PeerCore (the session path calls it every frame).
        .target(name: "PeerCrypto", dependencies: ["PeerCore", "PeerSystem", "CSodium", "CCrypto"], swiftSettings: strict + packageInlining),
        .target(name: "PeerIO", dependencies: ["PeerCore", "PeerCrypto", "PeerSystem", "CAvahi", "CSodium", "CCrypto", "CMalloc", "CLDNS"], swiftSettings: strict),
        .executableTarget(name: "peerd", dependencies: ["PeerCore", "PeerIO", "PeerSystem"], swiftSettings: strict),
        .executableTarget(name: "peerctl", dependencies: ["PeerTools", "PeerSystem", "PeerKit"], swiftSettings: strict),
        // The desktop's notifications you can answer (issue 45, point 2).
        .executableTarget(name: "peerd-agent", dependencies: ["PeerTools", "PeerSystem", "PeerKit", "CSystemd"], swiftSettings: strict),
        // The desktop app: a split view of the peers on PeerKit (issue 45, point 1).
        .executableTarget(name: "peerd-gtk", dependencies: ["PeerTools", "PeerKit", "PeerSystem", "CGtk"], swiftSettings: strict),
        // A hostile peer for the lab tests (Tests/integration/hostile_tests.sh).
        .executableTarget(name: "peerprobe", dependencies: ["PeerCore", "PeerIO"], swiftSettings: strict),
        // The benchmarks of issue 13 (`make bench`), and their probes.
        // It links PeerIO for the primitives' figures (peerd's own path to the
        // cipher and the hash); it is never installed.
        .executableTarget(name: "peerbench", dependencies: ["PeerCore", "PeerTools", "PeerSystem", "PeerKit", "PeerIO", "CSodium", "CCrypto"],
                          swiftSettings: strict, linkerSettings: [.linkedLibrary("crypto")]),
        .testTarget(name: "PeerCoreTests", dependencies: ["PeerProtocol", "PeerCore", "PeerTools"], swiftSettings: strict),
        .testTarget(name: "PeerKitTests", dependencies: ["PeerProtocol", "PeerSystem", "PeerKit"], swiftSettings: strict),
        .testTarget(name: "PeerIOTests", dependencies: ["PeerCore", "PeerSystem", "PeerCrypto", "PeerIO", "PeerKit"], exclude: ["Fixtures"], swiftSettings: strict),
    ]
)
