import PeerCore

/// What answers control requests (``ControlRouter`` in the daemon).
@MainActor
public protocol ControlRequestHandler: AnyObject {
    /// Answers one well-formed request from `client`. The reply is encoded
    /// and sent by the control layer.
    func handle(_ method: ControlMethod, params: ControlParams, client: ControlConnection) -> ControlReply
}
