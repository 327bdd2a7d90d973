import PeerCore
import PeerSystem

/// The session's part in the datagram path (docs/protocol.md §11): it
/// carries the `datagramPath` message, holds the datagram ciphers its
/// handshake made until the path takes them, and knows the peer's address.
extension PeerSession {
    /// Whether the peer announced `datagrams` in its handshake.
    package var speaksDatagrams: Bool { remoteHello?.speaks(.datagrams) == true }

    /// The datagram ciphers (send, receive), once: the path takes them when
    /// it opens for this session.
    package func takeDatagramCiphers() -> (send: DatagramCipher, receive: DatagramCipher)? { noise.takeDatagramCiphers() }

    /// Tells the peer where this host takes its datagrams: `index` for the
    /// session and the UDP `port` (0: none). Only to a peer that announced
    /// `datagrams`, on a connected session.
    package func sendDatagramPath(index: UInt32, port: UInt16) {
        guard speaksDatagrams, isConnected else { return }
        transmit(.datagramPath(index: index, port: port))
    }

    /// The most bytes waiting to be written for a datagram carried in the
    /// session to go: beyond, it is dropped rather than queued behind them.
    package static let datagramFrameRoom = 64 * 1024

    /// Carries a datagram in the session (`datagramFrame`), when the peer
    /// speaks datagrams and at most ``datagramFrameRoom`` bytes wait to be
    /// written; false when it was dropped (it waits behind what is queued
    /// at most, never behind more).
    package func sendDatagramFrame(app: AppName, data: [UInt8]) -> Bool {
        guard speaksDatagrams, isConnected, queuedBytes <= Self.datagramFrameRoom else { return false }
        transmit(.datagramFrame(app: app.text, data: data))
        return true
    }

    /// The peer's address as this session's connection sees it, at UDP
    /// `port`; `mapped` gives an IPv4 peer as IPv6 (a dual-stack socket).
    package func datagramAddress(port: UInt16, mapped: Bool) -> DatagramAddress? {
        DatagramAddress.peer(of: transport.descriptor, port: port, mapped: mapped)
    }
}
