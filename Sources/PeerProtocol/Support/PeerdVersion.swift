/// The release of peerd and peerctl: the one place it is written. It is
/// shown by `--version`, in `status` and the start-up log line, and said to
/// peers in the handshake (``PeerHello``). docs/protocol.md §9 and
/// CHANGELOG.md say what each release changed.
package enum PeerdVersion {
    /// The release string.
    package static let string = "0.4.0"
    /// The wire version: the `peerd/1` in the Noise prologue. Features
    /// (``WireFeature``) extend it; only a change that a peer of this
    /// version could not be told about makes a new one.
    package static let wire = 1

    /// What `--version` prints for `program`: the release on the first
    /// line (what scripts read), the wire version and features on the second.
    package static func text(program: String) -> String {
        "\(program) \(string)\nwire \(wire), features: \(WireFeature.allCases.map(\.rawValue).joined(separator: " "))"
    }
}
