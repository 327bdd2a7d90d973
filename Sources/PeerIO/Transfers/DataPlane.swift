import PeerCore
import PeerProtocol

/// The data plane the session layer talks to: file transfers
/// (``TransferDesk``) and streams (``StreamDesk``) share each session;
/// this routes what arrives to its desk and gives each its turn when the
/// session has room. (Message channels plug in as a ``SessionFeature``.)
@MainActor
package final class DataPlane: BulkRoom {
    /// Files.
    package let transfers: TransferDesk
    /// Streams.
    package let streams: StreamDesk
    /// Whose turn it is, per session (``BulkTurns``).
    private var turns: [ObjectIdentifier: BulkTurns] = [:]

    /// A plane over both desks.
    package init(transfers: TransferDesk, streams: StreamDesk) {
        self.transfers = transfers
        self.streams = streams
    }

    package func sessionUp(_ session: PeerSession) { transfers.sessionUp(session) }

    package func defaultJoined(_ session: PeerSession) { transfers.defaultJoined(session) }

    package func session(_ session: PeerSession, bulk message: BulkMessage, app: AppName) {
        guard let peer = session.peerUUID else { return }
        switch message {
        case .chunk(let flow, let file, let offset, let bytes):
            bytes.withUnsafeBytes { self.session(session, data: .chunk(flow, file: file, offset: offset), bytes: $0) }
        case .streamData(let flow, let bytes):
            bytes.withUnsafeBytes { self.session(session, data: .streamData(flow), bytes: $0) }
        case .streamOpen:
            streams.received(message, app: app, from: peer, on: session)
        case .streamEnd, .streamReset:
            streams.received(message, from: peer, on: session)
        case .credit(let flow, _) where streams.owns(flow):
            streams.received(message, from: peer, on: session)
        default:
            transfers.session(session, bulk: message, app: app)
        }
    }

    package func session(_ session: PeerSession, data head: BulkDataHead, bytes: UnsafeRawBufferPointer) {
        guard let peer = session.peerUUID else { return }
        switch head {
        case .chunk(let flow, let file, let offset):
            transfers.chunk(flow, file: file, offset: offset, bytes: bytes, from: peer, on: session)
        case .streamData(let flow):
            streams.data(flow, bytes: bytes, from: peer)
        }
    }

    /// Gives the session's room out in turns: each transfer and stream
    /// sends at most ``BulkTurns/quantum`` bytes before the next one's
    /// turn, round after round, the first of each round rotating, until
    /// the room is gone or nobody has anything to send.
    package func sessionCanSendBulk(_ session: PeerSession) {
        guard let peer = session.peerUUID else { return }
        let flows = transfers.sendingFlows(to: peer).map { (flow: $0, stream: false) }
            + streams.sendingFlows(to: peer).map { (flow: $0, stream: true) }
        guard !flows.isEmpty else { return }
        let key = ObjectIdentifier(session)
        var turn = turns[key] ?? BulkTurns()
        var moved = true
        while moved && session.bulkRoom > 0 {
            moved = false
            for entry in turn.order(flows) where session.bulkRoom > 0 {
                let sent = entry.stream ? streams.pump(entry.flow, limit: BulkTurns.quantum)
                                        : transfers.pump(entry.flow, on: session, limit: BulkTurns.quantum)
                if sent > 0 { moved = true }
            }
        }
        turns[key] = turn
    }

    package func sessionDown(_ session: PeerSession) {
        turns[ObjectIdentifier(session)] = nil
        transfers.sessionDown(session)
        if let peer = session.peerUUID {
            streams.sessionDown(peer)
        }
    }
}
