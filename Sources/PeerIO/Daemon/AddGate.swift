import FoundationEssentials
import PeerCore
import PeerSystem
import PeerProtocol

/// What `add` must pass before the daemon dials (issue 21, point 5): a
/// rate per uid (5 at once, then one every 2 s), and no local address
/// unless `--allow-local-add` (``AddTarget``). Without them, any member of
/// the group could make peerd probe ports, loopback included.
@MainActor
package final class AddGate {
    /// Dials a uid may start at once.
    static let burst = 5.0
    /// Dials a uid may start each second after that.
    static let perSecond = 0.5
    private var rate = RateLimiter<UInt32>(perSecond: perSecond, burst: burst)
    private let allowLocal: Bool
    private let clock: DaemonClock

    /// A gate; `allowLocal` is `--allow-local-add`.
    package init(allowLocal: Bool, clock: DaemonClock) {
        self.allowLocal = allowLocal
        self.clock = clock
    }

    /// Why `uid` may not dial `endpoint` now, or nil (and the dial counted).
    func refusal(_ endpoint: Endpoint, uid: UInt32?) -> ControlError? {
        let own = Set(HostAddresses.read().compactMap { $0.address.map { String($0.split(separator: "%").first ?? "") } })
        if let refusal = AddTarget.refusal(endpoint, own: own, allowLocal: allowLocal) { return refusal }
        // A client whose uid is unknown shares one bucket (uid_t's top value).
        guard rate.allow(uid ?? .max, now: clock.now()) else {
            return ControlError(.overloaded, "too many 'add' requests from this user: \(Int(Self.burst)) at once, then one every \(Int(1 / Self.perSecond)) s; try again shortly")
        }
        return nil
    }
}
