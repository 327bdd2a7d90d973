import PeerCore
import PeerProtocol

/// What answers control requests and hears what becomes of clients
/// (``ControlRouter`` in the daemon). It is given to
/// ``ControlServer/start(handler:)``: a server cannot run without one, so
/// none of these can be left unheard.
@MainActor
package protocol ControlRequestHandler: AnyObject {
    /// Answers one well-formed request from `client`. The reply is encoded
    /// and sent by the control layer.
    func handle(_ method: ControlMethod, params: ControlParams, client: ControlConnection) -> ControlReply
    /// Bytes were written to `client` (the inbox forgets a message once its
    /// event is written whole).
    func clientWrote(_ client: ControlConnection)
    /// `client` is gone.
    func clientClosed(_ client: ControlConnection)
    /// A subscriber's queue drained: a flow held back for it may go on.
    func subscriberDrained()
}
