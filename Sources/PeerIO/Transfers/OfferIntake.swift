import FoundationEssentials
import PeerCore
import PeerProtocol

/// Offers whose parts are still arriving (docs/protocol.md §8, `offer`
/// with `more`): each is assembled in an ``IncomingTransfer`` until its
/// manifest is whole, within the bounds on how many a peer may have
/// open and what every list held costs (``OfferListBudget``), and dropped
/// when its parts stop coming. A whole one goes on to
/// ``IncomingTransfers`` to be decided.
@MainActor
final class OfferIntake {
    /// Offers whose manifest is still arriving, by flow.
    private var pending: [FlowID: IncomingTransfer] = [:]
    private let surroundings: any TransferSurroundings
    private let logger: Logger

    /// An intake; refusals go out on the peer's session.
    init(surroundings: any TransferSurroundings, logger: Logger) {
        self.surroundings = surroundings
        self.logger = logger
    }

    /// The flows being assembled (held: a sweep leaves their files).
    var flows: Set<FlowID> { Set(pending.keys) }
    /// How many are being assembled, all and from `peer`.
    var count: Int { pending.count }
    func count(from peer: UUID) -> Int { pending.values.filter { $0.peer == peer }.count }

    /// What the lists still arriving cost: from `peer`, or from all when nil.
    func listCost(from peer: UUID?) -> Int {
        pending.values.reduce(0) { $0 + (peer == nil || $1.peer == peer ? $1.listCost : 0) }
    }

    /// A part of an offer from `peer`. `room` says whether a new offer
    /// may start (the caller counts the transfers it holds); `held` what
    /// the lists the caller holds cost, from this peer and from all
    /// (those still arriving here are added). Returns the transfer once
    /// its manifest is whole; nil while more must come, or after a refusal
    /// sent to the peer.
    func part(_ part: [OfferedFile], flow: FlowID, more: Bool, totalFiles: UInt32, totalBytes: UInt64, from peer: UUID, peerID: String,
              name: String, app: AppName, on session: any BulkSession, room: () -> Bool, held: (peer: Int, host: Int),
              budget: OfferListBudget, now: Date) -> IncomingTransfer? {
        let transfer: IncomingTransfer
        if let known = pending[flow] {
            // Every part of an offer comes for the same app.
            guard known.peer == peer, known.app == app else {
                session.sendBulk(.cancel(flow, reason: .protocolError, text: "a transfer id already in use"))
                return nil
            }
            transfer = known
        } else {
            guard room() else {
                session.sendBulk(.cancel(flow, reason: .busy, text: "too many transfers at once; try again later"))
                return nil
            }
            transfer = IncomingTransfer(flow: flow, peer: peer, peerID: peerID, peerName: name,
                                        peerFolder: DownloadFolder.peerFolder(name: name, peerID: peerID, app: app), app: app, now: now)
            pending[flow] = transfer
        }
        // Lists are bounded by what they cost, not by their count alone
        // (issue 21, point 1.6), whole ones too, per peer and for the host
        // (issue 42, point 1).
        let verdict = budget.admit(part: OfferAssembly.cost(of: part), peerHeld: held.peer + listCost(from: peer),
                                   hostHeld: held.host + listCost(from: nil))
        guard verdict == .fits else {
            pending[flow] = nil
            let words = switch verdict {
            case .peerFull(let limit): "the offer lists this host holds from you pass \(limit) bytes; wait until one is decided or done"
            case .hostFull(let limit): "the offer lists this host holds from all peers pass \(limit) bytes; try again later"
            case .fits: ""
            }
            logger.warning("transfer \(flow) from '\(name)': \(words); refused")
            session.sendBulk(.cancel(flow, reason: .busy, text: words))
            return nil
        }
        if let error = transfer.offerPart(part, more: more, totalFiles: totalFiles, totalBytes: totalBytes) {
            pending[flow] = nil
            session.sendBulk(.cancel(flow, reason: .protocolError, text: error))
            logger.warning("transfer \(flow) from '\(name)': \(error)")
            return nil
        }
        guard transfer.manifestComplete else { return nil }
        pending[flow] = nil
        return transfer
    }

    /// The session with `peer` ended: its offers still arriving go.
    func sessionDown(_ peer: UUID) {
        pending = pending.filter { $0.value.peer != peer }
    }

    /// Clock tick: offers whose parts did not all come within a minute
    /// are refused.
    func tick(now: Date) {
        for transfer in pending.values where now.timeIntervalSince(transfer.startedAt) > TransferDesk.manifestTimeout {
            pending[transfer.flow] = nil
            let words = "the offer's parts did not all come within \(Int(TransferDesk.manifestTimeout)) s"
            surroundings.session(for: transfer.peer)?.sendBulk(.cancel(transfer.flow, reason: .timedOut, text: words))
            logger.warning("transfer \(transfer.flow) from '\(transfer.peerName)': \(words); dropped")
        }
    }
}
