/// What becomes of a transfer offer when it arrives (issue 12, points 1
/// and 2): taken by itself (a paired peer, when `--auto-accept` allows),
/// put to a client, left waiting for one until its timeout, or refused
/// whole. Files refused one by one (``OfferCheck``) are not counted here.
package enum OfferDecision: Sendable, Equatable {
    /// Accepted without asking, by `--auto-accept`.
    case accept
    /// Accepted without asking, by the peer's Quick Save rule (issue 45),
    /// whatever `--auto-accept` says.
    case acceptQuickSave
    /// A subscribed client decides.
    case ask
    /// No client is subscribed: the offer waits in the daemon until one
    /// subscribes or it times out.
    case wait
    /// Not enough room on the download disk (bytes or inodes) for the
    /// acceptable files, the offers in progress and the reserve.
    case refuseNoSpace(DiskBudget.Shortfall)
    /// No file of the offer can be accepted.
    case refuseNothingAcceptable

    /// Decides for an offer of `count` acceptable files costing `cost`,
    /// against the disk's `budget`; `quickSave`: the peer has a Quick Save
    /// rule (for the default app's offers alone). The disk's room holds
    /// for every rule: no rule fills the disk.
    package static func decide(cost: DiskBudget.Cost, count: Int, budget: DiskBudget, policy: AutoAcceptPolicy, paired: Bool,
                              quickSave: Bool = false, deciders: Int) -> OfferDecision {
        guard count > 0 else { return .refuseNothingAcceptable }
        if let shortfall = budget.shortfall(for: cost) { return .refuseNoSpace(shortfall) }
        if quickSave { return .acceptQuickSave }
        switch policy {
        case .all: return .accept
        case .paired where paired: return .accept
        default: return deciders > 0 ? .ask : .wait
        }
    }
}
