/// What to do with an invitation that arrived: the invitee side's rule,
/// without I/O.
///
/// In order: a session this host asked for too (a crossing) or that the
/// `--auto-accept` policy covers is accepted; an unpaired peer's invitation
/// that passes `--invitation-rate` is declined (pairing ones count too, so
/// a stranger cannot open sessions faster that way); a session opened to
/// pair is accepted (the person decides by the code); with no subscriber to
/// ask, it is declined; otherwise a client is asked.
package enum InvitationPolicy {
    /// The facts of one invitation.
    package struct Facts: Sendable, Equatable {
        /// This host asked for the session too (crossing invitations).
        package var wanted: Bool
        /// `--auto-accept` covers the inviter (paired, or all).
        package var policyAccepts: Bool
        /// The invitation opens a session to pair.
        package var pairing: Bool
        /// The inviter is paired with this host.
        package var paired: Bool
        /// The invitation rate for unpaired peers allows one more.
        package var rateAllows: Bool
        /// Clients subscribed to events, who could decide.
        package var subscribers: Int

        /// Creates the facts.
        package init(wanted: Bool = false, policyAccepts: Bool = false, pairing: Bool = false, paired: Bool = false,
                    rateAllows: Bool = true, subscribers: Int = 1) {
            self.wanted = wanted
            self.policyAccepts = policyAccepts
            self.pairing = pairing
            self.paired = paired
            self.rateAllows = rateAllows
            self.subscribers = subscribers
        }
    }

    /// The decision.
    package enum Decision: Sendable, Equatable {
        /// Accept now.
        case accept
        /// Decline now, with these words for the inviter.
        case decline(String)
        /// Ask a client (an `invitation` event).
        case ask
    }

    /// Decides.
    package static func decide(_ facts: Facts) -> Decision {
        if facts.wanted || (!facts.pairing && facts.policyAccepts) { return .accept }
        if !facts.paired && !facts.rateAllows { return .decline("too many invitations; try again later") }
        if facts.pairing { return .accept }
        if facts.subscribers == 0 { return .decline("no client is subscribed on the invitee to decide") }
        return .ask
    }
}
