import FoundationEssentials
import PeerCore
import PeerProtocol

/// A feature that plugs into the session (issue 43, point 1), as NIO's
/// pipeline handlers and tailscale's extensions do: it names the message
/// types and control methods it owns, and hears of the sessions, and
/// ``SessionFeatures`` routes to it. Adding a feature is a folder and a
/// line where the daemon lists its features; the session, the director
/// and the router stay as they are. Every hook but the ones it needs has
/// a default that does nothing.
@MainActor
package protocol SessionFeature: AnyObject {
    /// The wire feature a peer must have announced before it may send one
    /// of ``messageTypes`` (docs/protocol.md §9); nil when it owns none.
    var wireFeature: WireFeature? { get }
    /// The message types it owns: from ``WireCodec/firstFeatureType`` up,
    /// never a core type; no two features share one.
    var messageTypes: Set<UInt8> { get }
    /// The control methods it answers; no two features share one.
    var controlMethods: Set<ControlMethod> { get }

    /// One of its messages from `session`'s peer, which announced
    /// ``wireFeature``: nil when it took it, else why it breaks the
    /// protocol (the session ends with these words).
    func received(type: UInt8, body: [UInt8], on session: any FeatureSession) -> String?
    /// `session` is connected and its peer's current one.
    func sessionUp(_ session: any FeatureSession)
    /// `session` ended (any session); `wasCurrent`: it was its peer's
    /// current one until then.
    func sessionDown(_ session: any FeatureSession, wasCurrent: Bool)
    /// A whole application message of `app` from `session`'s peer: true
    /// when the feature took it (it is then a client's, and may be
    /// acknowledged), false for the inbox's usual path.
    func deliver(_ message: [UInt8], app: AppName, from session: any FeatureSession) -> Bool
    /// The peer acknowledged `session`'s first `count` messages.
    func acknowledged(_ count: UInt64, on session: any FeatureSession)
    /// `session` has room to send again.
    func room(on session: any FeatureSession)
    /// The peer refused `app`'s messages on `session` (`appBusy`), with its words.
    func appBusy(_ app: AppName, on session: any FeatureSession, text: String)
    /// Answers one of ``controlMethods``.
    func handle(_ method: ControlMethod, params: ControlParams, client: ControlConnection) -> ControlReply
    /// Adds what it knows of a peer to `peer`'s answer.
    func describe(_ result: inout PeerResult)
    /// Adds its part to `status`'s answer.
    func describe(_ status: inout DaemonStatus)
    /// The daemon starts serving.
    func start()
    /// Once a second.
    func tick(now: Date)
    /// The daemon stops.
    func stop()
}

extension SessionFeature {
    package var wireFeature: WireFeature? { nil }
    package var messageTypes: Set<UInt8> { [] }
    package var controlMethods: Set<ControlMethod> { [] }
    package func received(type: UInt8, body: [UInt8], on session: any FeatureSession) -> String? {
        WireError.unknownType(type).description
    }
    package func sessionUp(_ session: any FeatureSession) {}
    package func sessionDown(_ session: any FeatureSession, wasCurrent: Bool) {}
    package func deliver(_ message: [UInt8], app: AppName, from session: any FeatureSession) -> Bool { false }
    package func acknowledged(_ count: UInt64, on session: any FeatureSession) {}
    package func room(on session: any FeatureSession) {}
    package func appBusy(_ app: AppName, on session: any FeatureSession, text: String) {}
    package func handle(_ method: ControlMethod, params: ControlParams, client: ControlConnection) -> ControlReply {
        .error(ControlError(.unknownMethod, "no feature answers '\(method.rawValue)'"))
    }
    package func describe(_ result: inout PeerResult) {}
    package func describe(_ status: inout DaemonStatus) {}
    package func start() {}
    package func tick(now: Date) {}
    package func stop() {}
}
