/// The fields every daemon line may carry, decoded first so a client can
/// tell a response from an event and an error from a result.
public struct ControlEnvelope: Decodable, Sendable {
    /// Protocol version.
    public var v: Int
    /// The request this answers; absent on events.
    public var id: RequestID?
    /// Set on failure.
    public var error: ControlError?
    /// Set on event lines.
    public var event: ControlEvent?
}
