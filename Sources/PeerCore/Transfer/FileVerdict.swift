/// The receiver's answer for one file of an offer (the `answer` message,
/// docs/protocol.md §8). The one-byte codes are the protocol, pinned by
/// `WireValuesTests`.
package import PeerProtocol
package enum FileVerdict: Sendable, Equatable {
    /// Send it, from the block the answer names.
    case accepted
    /// The receiving user left it out.
    case declined
    /// Refused for its name or its place in the offer (``OfferRefusal``).
    case refused(OfferRefusal)

    /// The wire code: 0 accepted, 1 declined, 2 duplicate, 3 under a file,
    /// 4 bad size, then 16 + the ``TransferPathRefusal`` code for a name.
    package var code: UInt8 {
        switch self {
        case .accepted: 0
        case .declined: 1
        case .refused(.duplicate): 2
        case .refused(.underAFile): 3
        case .refused(.badSize): 4
        case .refused(.name(let refusal)): 16 + refusal.code
        }
    }

    /// The verdict for a code; nil for one this version does not know.
    package init?(code: UInt8) {
        switch code {
        case 0: self = .accepted
        case 1: self = .declined
        case 2: self = .refused(.duplicate)
        case 3: self = .refused(.underAFile)
        case 4: self = .refused(.badSize)
        default:
            // The first case with the code: the one 0.1.0 named.
            guard code >= 16, let refusal = TransferPathRefusal.allCases.first(where: { $0.code == code - 16 }) else { return nil }
            self = .refused(.name(refusal))
        }
    }

    /// One word for events: `accepted`, `declined`, or the refusal's reason.
    package var word: String {
        switch self {
        case .accepted: "accepted"
        case .declined: "declined"
        case .refused(let refusal): refusal.reason
        }
    }
}

extension TransferPathRefusal {
    /// The refusal's number inside a ``FileVerdict`` code (1…8; the
    /// later refusals share the code of the nearest older one).
    package var code: UInt8 {
        switch self {
        case .empty: 1
        case .notUTF8: 2
        case .notNFC: 3
        case .absolute: 4
        case .emptyComponent: 5
        case .dotComponent: 6
        case .controlCharacter: 7
        case .tooLong: 8
        // Refusals added after 0.1.0 travel under the nearest code that a
        // 0.1.0 sender knows (an unknown verdict is a protocol error
        // there); this side's events still name them exactly.
        case .reservedName: 6
        case .invisibleCharacter, .lookalikeSeparator: 7
        }
    }
}
