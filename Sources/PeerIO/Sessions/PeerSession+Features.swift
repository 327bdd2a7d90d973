import PeerCore
import PeerSystem

/// What a feature sees of the session (``FeatureSession``): the session
/// sends a feature's messages as it does its own, and gives the datagram
/// path (docs/protocol.md §11) the ciphers its handshake made and the
/// peer's address.
extension PeerSession: FeatureSession {
    /// Sends a feature's message; anything else is not a feature's to send.
    package func send(feature message: WireMessage) {
        guard case .feature = message, isConnected else { return }
        transmit(message)
    }

    /// The datagram ciphers (send, receive), once: the path takes them when
    /// it opens for this session.
    package func takeDatagramCiphers() -> (send: DatagramCipher, receive: DatagramCipher)? { noise.takeDatagramCiphers() }

    /// The peer's address as this session's connection sees it, at UDP
    /// `port`; `mapped` gives an IPv4 peer as IPv6 (a dual-stack socket).
    package func datagramAddress(port: UInt16, mapped: Bool) -> DatagramAddress? {
        DatagramAddress.peer(of: transport.descriptor, port: port, mapped: mapped)
    }
}
