/// What the offer lists a receiver holds may cost in memory (issue 42,
/// point 1): every list it holds counts, from its first part until the
/// transfer ends (arriving, waiting for a decision, active or
/// interrupted), at what it costs (``OfferList/memoryCost``), per peer
/// and for the host. Pure: the desk asks before it takes a part.
package struct OfferListBudget: Sendable, Equatable {
    /// One peer's lists: one offer of the most names (16 MiB) and the most
    /// files (100,000 entries of ``OfferList/entryCost`` bytes) fits, with
    /// 256 KiB for the parts a sender that fills them makes (about 18.6 MiB).
    package static let perPeerDefault = OfferAssembly.maxNameBytes + OfferCheck.maxFiles * OfferList.entryCost + (256 << 10)
    /// Every peer's lists together: three such offers at once.
    package static let hostDefault = 64 << 20

    /// What one peer's lists may cost.
    package let perPeer: Int
    /// What every peer's lists may cost together.
    package let host: Int

    /// Whether a part may be taken, and if not, whose share is full.
    package enum Verdict: Sendable, Equatable {
        /// It fits.
        case fits
        /// This peer's lists would pass ``perPeer``.
        case peerFull(limit: Int)
        /// Every peer's lists together would pass ``host``.
        case hostFull(limit: Int)
    }

    /// A budget of `perPeer` and `host` bytes.
    package init(perPeer: Int = Self.perPeerDefault, host: Int = Self.hostDefault) {
        self.perPeer = perPeer
        self.host = host
    }

    /// Whether a part costing `part` bytes fits beside what the peer's
    /// lists (`peerHeld`) and every list (`hostHeld`) cost now. The
    /// peer's share is asked first: a peer past its own is told so.
    package func admit(part: Int, peerHeld: Int, hostHeld: Int) -> Verdict {
        if peerHeld + part > perPeer { return .peerFull(limit: perPeer) }
        if hostHeld + part > host { return .hostFull(limit: host) }
        return .fits
    }
}
