import PeerCore

/// What sessions say of the datagram path (docs/protocol.md §11): handed
/// to the ``DatagramDesk`` as it is.
extension SessionDirector {
    /// Where the peer takes datagrams: the datagram path's. Taken from any
    /// connected session, even one whose row is still being found: the
    /// path is the session's, and ends with it.
    package func session(_ session: PeerSession, datagramPath index: UInt32, port: UInt16) {
        datagrams.session(session, datagramPath: index, port: port)
    }

    /// A datagram carried in the session: the datagram path's clients get it.
    package func session(_ session: PeerSession, datagramFrame data: [UInt8], app: String) {
        datagrams.session(session, datagramFrame: data, app: app)
    }
}
