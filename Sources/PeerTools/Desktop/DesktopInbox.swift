import FoundationEssentials
import PeerProtocol

/// What waits for the desktop app's user, by peer (issue 45, point 1):
/// invitations, pairings under way (a code to show, or one to type) and
/// incoming offers, with their progress once accepted. Fed the daemon's events;
/// pure, so a table tests it and the window only draws it.
package struct DesktopInbox: Equatable, Sendable {
    /// A pairing under way with a peer.
    package struct Pairing: Equatable, Sendable {
        /// Its id (`pairAccept`, `pairReject`).
        package var id: String
        /// The code to show (this host started it), or nil: the user types
        /// the code the other host shows.
        package var code: String?
    }

    /// An incoming transfer from a peer.
    package struct Offer: Equatable, Sendable {
        /// Its id (`acceptTransfer`, `declineTransfer`).
        package var id: String
        /// "a.txt (3.0 MiB)", or "3 files, 1.5 MiB".
        package var files: String
        /// Whether it waits for an answer (offered), else it is under way.
        package var waiting: Bool
        /// Percent received, once under way.
        package var percent: Int
        /// Its folder in the service's downloads (TRANSFER's `folder`), once
        /// every file is in place (nil before): "Save to Downloads" moves it.
        package var folder: String? = nil
        /// The user's folder its files were moved into ("Open folder").
        package var savedTo: String? = nil
    }

    /// Invitations waiting for an answer, their ids by peer (the default app's).
    package private(set) var invitations: [UUID: String] = [:]
    /// Pairings, by peer.
    package private(set) var pairings: [UUID: Pairing] = [:]
    /// Incoming offers, by peer, oldest first (at most ``maxOffersPerPeer``).
    package private(set) var offers: [UUID: [Offer]] = [:]
    /// Offers kept per peer: a flood cannot grow the window without bound.
    package static let maxOffersPerPeer = 8

    /// An empty inbox.
    package init() {}

    /// Takes in what waits already (the app started after it came, or
    /// missed events): each as if its event came now.
    package mutating func catchUp(invitations: [InvitationInfo], pairings: [PairingInfo], transfers: [TransferInfo], now: Date) {
        for event in WaitingEvents.events(invitations: invitations, pairings: pairings, transfers: transfers, now: now) { apply(event) }
    }

    /// Forgets transfer `id` of `peer` (failed, or its end dismissed).
    package mutating func dismiss(_ id: String, of peer: UUID) {
        offers[peer]?.removeAll { $0.id == id }
        if offers[peer]?.isEmpty ?? false { offers[peer] = nil }
    }

    /// The peer an offer, a pairing or an invitation with `id` is from
    /// (`peerd-gtk --show ID`, from the agent's Show), or nil.
    package static func peer(of id: String, transfers: [TransferInfo], pairings: [PairingInfo], invitations: [InvitationInfo]) -> UUID? {
        transfers.first { $0.id == id }?.peer ?? pairings.first { $0.id == id }?.peer ?? invitations.first { $0.id == id }?.peer
    }

    /// Applies a daemon event.
    package mutating func apply(_ event: ControlEvent) {
        switch event.type {
        case .invitation:
            guard let invitation = event.invitation, invitation.app.map({ $0.isEmpty }) ?? true else { return }
            invitations[invitation.peer] = invitation.id
        case .stateChanged, .peerLost:
            // Answered (here or elsewhere), or the peer went.
            if let peer = event.peer?.id { invitations[peer] = nil }
        case .pairingCode, .pairingRequest:
            guard let pairing = event.pairing else { return }
            pairings[pairing.peer] = Pairing(id: pairing.id, code: pairing.initiator ? pairing.code : nil)
        case .paired, .pairingFailed:
            guard let pairing = event.pairing, pairings[pairing.peer]?.id == pairing.id else { return }
            pairings[pairing.peer] = nil
        case .transferOffered, .transferProgress:
            guard let transfer = event.transfer, transfer.direction == .receive, transfer.app == nil else { return }
            let total = max(transfer.acceptedBytes, 1)
            let offer = Offer(id: transfer.id,
                              files: NotificationText.files(count: transfer.totalFiles, bytes: transfer.totalBytes, firstName: transfer.files?.first?.name),
                              waiting: transfer.state == .offered, percent: Int(min(100, max(0, transfer.bytes * 100 / total))))
            var list = offers[transfer.peer] ?? []
            if let index = list.firstIndex(where: { $0.id == transfer.id }) {
                // Progress keeps the offer's words (a progress event lists no files).
                list[index].waiting = offer.waiting
                list[index].percent = offer.percent
            } else if event.type == .transferOffered {
                list.append(offer)
                if list.count > Self.maxOffersPerPeer { list.removeFirst(list.count - Self.maxOffersPerPeer) }
            }
            offers[transfer.peer] = list
        case .transferCompleted:
            // Kept, with its folder, for "Save to Downloads" (until dismissed or pushed out).
            guard let transfer = event.transfer, let index = offers[transfer.peer]?.firstIndex(where: { $0.id == transfer.id }) else { return }
            offers[transfer.peer]![index].waiting = false
            offers[transfer.peer]![index].percent = 100
            offers[transfer.peer]![index].folder = transfer.folder ?? ""
        case .transferFailed:
            guard let transfer = event.transfer else { return }
            dismiss(transfer.id, of: transfer.peer)
        default:
            return
        }
    }

    /// The user moved `transfer`'s files from `peer` into `into`.
    package mutating func saved(_ transfer: String, of peer: UUID, into: String) {
        guard let index = offers[peer]?.firstIndex(where: { $0.id == transfer }) else { return }
        offers[peer]![index].savedTo = into
    }
}
