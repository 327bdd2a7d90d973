/// An event line on a subscription: `{"v":1,"event":{…}}`.
public struct EventLine: Codable, Sendable {
    /// Protocol version.
    public var v: Int
    /// The event.
    public var event: ControlEvent

    /// Wraps an event.
    public init(_ event: ControlEvent) {
        v = ControlProtocol.version
        self.event = event
    }
}
