import FoundationEssentials
import PeerProtocol

/// What waits on the daemon (its lists of invitations, pairings and
/// incoming transfers) as the events that announced it, so a desktop
/// program that started after them, or missed events, catches up through
/// the path its live events take (``NotificationPlanner``, ``DesktopInbox``).
package enum WaitingEvents {
    /// Each invitation, each pairing (its code's event where this host
    /// started it, its request's otherwise) and each incoming transfer
    /// offered or under way, stamped `now`.
    package static func events(invitations: [InvitationInfo], pairings: [PairingInfo], transfers: [TransferInfo], now: Date) -> [ControlEvent] {
        invitations.map { ControlEvent(seq: 0, type: .invitation, time: now, invitation: $0) }
            + pairings.map { ControlEvent(seq: 0, type: $0.initiator ? .pairingCode : .pairingRequest, time: now, pairing: $0) }
            + transfers.filter { $0.direction == .receive && ($0.state == .offered || $0.state == .active) }
                .map { ControlEvent(seq: 0, type: .transferOffered, time: now, transfer: $0) }
    }
}
