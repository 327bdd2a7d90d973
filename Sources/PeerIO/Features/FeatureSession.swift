import FoundationEssentials
import PeerCore
import PeerSystem
import PeerProtocol

/// What a feature that plugs into the session (``SessionFeature``) sees of
/// one: who it is with, what the peer announced, whether it carries data,
/// and a way out for the feature's own messages. ``PeerSession`` is the
/// one in the daemon; a test gives a fake one, so a feature is tested
/// without sockets (issue 43, points 1 and 4).
@MainActor
package protocol FeatureSession: AnyObject {
    /// A number for logs, and the key of what a feature keeps per session.
    var number: Int { get }
    /// The peer's row, once known.
    var peerUUID: UUID? { get }
    /// The id the peer proved, after the handshake.
    var remotePeerID: String? { get }
    /// What the peer said of itself in the handshake (release, features).
    var remoteHello: PeerHello? { get }
    /// Whether the session is established and may carry data.
    var isConnected: Bool { get }
    /// Whether the session was opened to pair (it carries nothing else).
    var isForPairing: Bool { get }
    /// Whether the session carries the default app's traffic.
    var carriesDefault: Bool { get }
    /// The app the session was accepted for alone, if it does not carry
    /// the default app.
    var admission: AppName? { get }
    /// Bytes waiting to be written.
    var queuedBytes: Int { get }
    /// Sends one of the feature's own messages (``WireMessage/feature(type:body:)``),
    /// sealed in order with everything else.
    func send(feature message: WireMessage)
    /// Stops (or resumes) reading from the peer for `holder`.
    func holdReading(_ hold: Bool, for holder: ReadHolds)
    /// The datagram ciphers the handshake made, once (docs/protocol.md §11).
    func takeDatagramCiphers() -> (send: DatagramCipher, receive: DatagramCipher)?
    /// The peer's address as this session's connection sees it, at UDP
    /// `port`; `mapped` gives an IPv4 peer as IPv6 (a dual-stack socket).
    func datagramAddress(port: UInt16, mapped: Bool) -> DatagramAddress?
}

extension FeatureSession {
    /// Whether the peer announced `feature` in its handshake.
    package func speaks(_ feature: WireFeature) -> Bool { remoteHello?.speaks(feature) == true }
}
