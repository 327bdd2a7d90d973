/// What becomes of a transfer offer when it arrives (issue 12, points 1
/// and 2): taken by itself (a paired peer, when `--auto-accept` allows),
/// put to a client, left waiting for one until its timeout, or refused
/// whole. Files refused one by one (``OfferCheck``) are not counted here.
public enum OfferDecision: Sendable, Equatable {
    /// Accepted without asking.
    case accept
    /// A subscribed client decides.
    case ask
    /// No client is subscribed: the offer waits in the daemon until one
    /// subscribes or it times out.
    case wait
    /// Not enough free space for the accepted files and the reserve.
    case refuseNoSpace(needed: Int64, free: Int64)
    /// No file of the offer can be accepted.
    case refuseNothingAcceptable

    /// Decides for an offer whose acceptable files hold `bytes` in
    /// `count` files, with `free` bytes free on the download disk of which
    /// `reserve` are kept back.
    public static func decide(bytes: Int64, count: Int, free: Int64, reserve: Int64, policy: AutoAcceptPolicy, paired: Bool,
                              deciders: Int) -> OfferDecision {
        guard count > 0 else { return .refuseNothingAcceptable }
        guard bytes <= free - reserve else { return .refuseNoSpace(needed: bytes + reserve, free: free) }
        switch policy {
        case .all: return .accept
        case .paired where paired: return .accept
        default: return deciders > 0 ? .ask : .wait
        }
    }
}
