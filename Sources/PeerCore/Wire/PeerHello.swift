/// What a side says of itself in its Noise handshake payload (docs/
/// protocol.md §3 and §9): its release and the wire features it speaks.
/// The responder sends it in message 2, the initiator in message 3, both
/// encrypted and covered by the handshake hash. A peer that sends an
/// empty payload says nothing: it is release 0.1.0, with no features.
///
/// Layout (format 1): `format u8 = 1 · release_len u8 · release (ASCII) ·
/// count u8 · count × (name_len u8 · name (ASCII))`. A later format only
/// appends fields: a reader takes the fields it knows and ignores the bytes
/// after them, and ignores feature names it does not know.
package import PeerProtocol
package struct PeerHello: Equatable, Sendable {
    /// The format this release writes.
    package static let format: UInt8 = 1
    /// The most bytes of a release string.
    package static let maxRelease = 32
    /// The most bytes of a feature name.
    package static let maxName = 32
    /// The most features one hello names.
    package static let maxFeatures = 64
    /// The release of a peer that says nothing.
    package static let silentRelease = "0.1.0"

    /// The sender's release, as it said it ("0.2.0").
    package let release: String
    /// Every feature name it announced, known here or not, in its order.
    package let names: [String]

    /// A hello.
    package init(release: String, names: [String]) {
        self.release = release
        self.names = names
    }

    /// What a peer that sent an empty payload is.
    package static let silent = PeerHello(release: silentRelease, names: [])

    /// This release's own hello: every feature it speaks, but
    /// `sha256-blocks` only where SHA-256 is fast (`fastSHA256`: the CPU
    /// has SHA-256 instructions; peerd asks it once, `LocalHello`).
    package static func ours(fastSHA256: Bool) -> PeerHello {
        PeerHello(release: PeerdVersion.string, names: WireFeature.allCases.filter { $0 != .sha256Blocks || fastSHA256 }.map(\.rawValue))
    }

    /// The features known here that it announced.
    package var features: Set<WireFeature> { Set(names.compactMap(WireFeature.init(rawValue:))) }

    /// Whether it announced `feature`.
    package func speaks(_ feature: WireFeature) -> Bool { names.contains(feature.rawValue) }

    /// Whether it may send `message` (it announced one of the features the
    /// message needs, or it needs none).
    package func maySend(_ message: WireMessage) -> Bool {
        // An app's flow needs apps, and files or streams for what it opens.
        if case .app(.flow(_, let opening)) = message, !maySend(.bulk(opening)) { return false }
        let needed = WireFeature.needed(for: message)
        return needed.isEmpty || needed.contains { speaks($0) }
    }

    /// Why `message` may not come from this peer, if it may not (it needs a
    /// feature the peer did not announce): the words of the protocol error.
    package func refusal(of message: WireMessage) -> String? {
        guard !maySend(message) else { return nil }
        var needed = WireFeature.needed(for: message).map(\.rawValue).sorted().joined(separator: " or ")
        if case .app(.flow(_, let opening)) = message {
            needed = "apps and " + WireFeature.needed(for: opening).map(\.rawValue).sorted().joined(separator: " or ")
        }
        return "a message that needs \(needed), which the peer did not announce"
    }

    /// Why a message of `feature` (one of the types a feature registered
    /// with the session) may not come from this peer, if it did not
    /// announce the feature: the words of ``refusal(of:)``.
    package func refusal(ofFeatureMessage feature: WireFeature) -> String? {
        speaks(feature) ? nil : "a message that needs \(feature.rawValue), which the peer did not announce"
    }

    /// Why bytes of `feature` (a `chunk` or `streamData`) may not come from
    /// this peer, if it did not announce the feature.
    package func refusal(ofBytesOf feature: WireFeature) -> String? {
        speaks(feature) ? nil : "\(feature.rawValue) bytes from a peer that did not announce \(feature.rawValue)"
    }

    /// The payload bytes.
    package func encode() -> [UInt8] {
        var out: [UInt8] = [Self.format, UInt8(release.utf8.count)]
        out += Array(release.utf8)
        out.append(UInt8(names.count))
        for name in names {
            out.append(UInt8(name.utf8.count))
            out += Array(name.utf8)
        }
        return out
    }

    /// Reads a handshake payload: empty is ``silent``; anything else must be
    /// a hello of format 1 or later, within its limits.
    package static func decode(_ payload: [UInt8]) throws(WireError) -> PeerHello {
        guard !payload.isEmpty else { return .silent }
        var reader = ByteReader(payload)
        let format = try reader.u8("hello format")
        guard format >= 1 else { throw .unsupportedVersion(format) }
        let releaseLength = Int(try reader.u8("hello release length"))
        guard releaseLength >= 1, releaseLength <= maxRelease else { throw .fieldTooLong("hello release", releaseLength) }
        let release = try ascii(try reader.bytes(releaseLength, "hello release"), "hello release", allowed: isReleaseByte)
        let count = Int(try reader.u8("hello feature count"))
        guard count <= maxFeatures else { throw .fieldTooLong("hello feature list", count) }
        var names: [String] = []
        for _ in 0..<count {
            let length = Int(try reader.u8("hello feature name length"))
            guard length >= 1, length <= maxName else { throw .fieldTooLong("hello feature name", length) }
            names.append(try ascii(try reader.bytes(length, "hello feature name"), "hello feature name", allowed: isNameByte))
        }
        // Bytes after the fields of format 1 belong to a later format.
        return PeerHello(release: release, names: names)
    }

    private static func ascii(_ bytes: [UInt8], _ what: String, allowed: (UInt8) -> Bool) throws(WireError) -> String {
        guard bytes.allSatisfy(allowed) else { throw .invalidText(what) }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// A release is letters, digits and `.+-~` (a Debian version's characters).
    private static func isReleaseByte(_ byte: UInt8) -> Bool {
        (0x30...0x39).contains(byte) || (0x41...0x5a).contains(byte) || (0x61...0x7a).contains(byte) || [0x2e, 0x2b, 0x2d, 0x7e].contains(byte)
    }

    /// A feature name is lowercase letters, digits and hyphens.
    private static func isNameByte(_ byte: UInt8) -> Bool {
        (0x30...0x39).contains(byte) || (0x61...0x7a).contains(byte) || byte == 0x2d
    }
}
