import PeerCore

/// What answers control requests; the session manager implements it.
@MainActor
public protocol ControlRequestHandler: AnyObject {
    /// Answers one well-formed request by sending lines on `connection`.
    func handle(_ method: ControlMethod, params: ControlParams, id: RequestID, connection: ControlConnection)
}
