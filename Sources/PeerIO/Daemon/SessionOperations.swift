import FoundationEssentials
import PeerCore
import PeerProtocol

/// What the control router asks of the session layer: the requests that
/// open, use or close sessions.
@MainActor
package protocol SessionOperations: AnyObject {
    /// Invites the peer (or reuses its session); with `app`, a new session
    /// is asked for on behalf of that app alone (its rules decide there).
    func invite(_ peer: PeerSnapshot, context: [UInt8], timeout: TimeInterval, app: AppName) -> Result<InviteResult, ControlError>
    /// Dials a peer at an address (`add`); `done` gets its row once it has
    /// proved its key, or the reason it could not; `uid` is the client's,
    /// for the rate of `add` per user.
    func add(_ endpoint: Endpoint, context: [UInt8], timeout: TimeInterval, uid: UInt32?,
             then done: @escaping @MainActor (Result<InviteResult, ControlError>) -> Void)
    /// Closes the session with the peer.
    func disconnect(_ peer: PeerSnapshot) -> Result<PeerResult, ControlError>
    /// Queues one message of `app` on the peer's connected session.
    func send(_ data: [UInt8], to peer: PeerSnapshot, app: AppName) -> Result<SendResult, ControlError>
    /// Starts pairing with the peer (dialling it if need be).
    func pair(with peer: PeerSnapshot) -> Result<PeerSnapshot, ControlError>
    /// Removes the trust in the peer here and tells it; `done` gets the
    /// row once the trust store is written.
    func unpair(_ peer: PeerSnapshot, then done: @escaping @MainActor (Result<PeerSnapshot, ControlError>) -> Void)
    /// Hands the peer's queued messages to its session, if it has one.
    func drainQueue(for peer: UUID)
}
