import PeerCore

/// The data plane the session layer talks to: file transfers
/// (``TransferDesk``) and streams (``StreamDesk``) share each session, and
/// this routes each bulk message to its desk and gives both their turn when
/// the session has room.
@MainActor
public final class DataPlane: BulkRoom {
    /// Files.
    public let transfers: TransferDesk
    /// Streams.
    public let streams: StreamDesk
    /// Which desk goes first on the next turn, so neither starves the other.
    private var streamsFirst = false

    /// A plane over both desks.
    public init(transfers: TransferDesk, streams: StreamDesk) {
        self.transfers = transfers
        self.streams = streams
    }

    public func sessionUp(_ session: PeerSession) { transfers.sessionUp(session) }

    public func session(_ session: PeerSession, bulk message: BulkMessage) {
        guard let peer = session.peerUUID else { return }
        switch message {
        case .streamOpen, .streamData, .streamEnd, .streamReset:
            streams.received(message, from: peer, on: session)
        case .credit(let flow, _) where streams.owns(flow):
            streams.received(message, from: peer, on: session)
        default:
            transfers.session(session, bulk: message)
        }
    }

    public func sessionCanSendBulk(_ session: PeerSession) {
        guard let peer = session.peerUUID else { return }
        streamsFirst.toggle()
        if streamsFirst {
            streams.sessionCanSendBulk(peer)
            transfers.sessionCanSendBulk(session)
        } else {
            transfers.sessionCanSendBulk(session)
            streams.sessionCanSendBulk(peer)
        }
    }

    public func sessionDown(_ session: PeerSession) {
        transfers.sessionDown(session)
        if let peer = session.peerUUID { streams.sessionDown(peer) }
    }
}
