import PeerCore
import PeerProtocol

/// What ``SessionAdoption`` reports back to the ``SessionDirector`` that
/// owns it. The director is its adoption's delegate from its own init
/// on, so no report can go unheard.
@MainActor
package protocol SessionAdoptionDelegate: AnyObject {
    /// An incoming session became its peer's current one.
    func sessionAdopted(_ session: PeerSession)
    /// A dial to an address (`add`) proved its peer, who has `row`;
    /// `existing` when another session with it stays instead.
    func session(_ session: PeerSession, provedAddressOf row: PeerSnapshot, existing: Bool)
}
