import FoundationEssentials
import PeerCore
import PeerProtocol

/// The features that plug into the sessions (``SessionFeature``), listed
/// once by the daemon: the session asks it who owns a message type, the
/// router who answers a control method, and the director tells it of each
/// session's life, in the order the features were listed.
@MainActor
package final class SessionFeatures {
    /// The features, in the order they hear of sessions.
    package let all: [any SessionFeature]
    private let byType: [UInt8: any SessionFeature]
    private let byMethod: [ControlMethod: any SessionFeature]

    /// No features: a session alone (tests), or a daemon before they exist.
    package static let none = SessionFeatures([])

    /// The registry of `features`. Two that claim one type or method, or
    /// a type that is the core's, is a programming error: it stops here.
    package init(_ features: [any SessionFeature]) {
        all = features
        var byType: [UInt8: any SessionFeature] = [:]
        var byMethod: [ControlMethod: any SessionFeature] = [:]
        for feature in features {
            for type in feature.messageTypes {
                precondition(type >= WireCodec.firstFeatureType && type != WireCodec.queuedType, "message type 0x\(String(type, radix: 16)) is the core's")
                precondition(byType.updateValue(feature, forKey: type) == nil, "two features own message type 0x\(String(type, radix: 16))")
                precondition(feature.wireFeature != nil, "a feature with message types needs a wire feature")
            }
            for method in feature.controlMethods {
                precondition(byMethod.updateValue(feature, forKey: method) == nil, "two features answer '\(method.rawValue)'")
            }
        }
        self.byType = byType
        self.byMethod = byMethod
    }

    /// The feature that owns message `type`, if any.
    package func owner(ofType type: UInt8) -> (any SessionFeature)? { byType[type] }

    /// The feature that answers `method`, if any.
    package func owner(of method: ControlMethod) -> (any SessionFeature)? { byMethod[method] }

    /// A feature's message arrived on `session`: nil when its owner took
    /// it, else why the session ends (an unowned type, a feature the peer
    /// did not announce, or the owner's own rules).
    package func received(type: UInt8, body: [UInt8], on session: any FeatureSession) -> String? {
        guard let owner = byType[type] else { return WireError.unknownType(type).description }
        if let feature = owner.wireFeature, let hello = session.remoteHello, let refusal = hello.refusal(ofFeatureMessage: feature) {
            return refusal
        }
        return owner.received(type: type, body: body, on: session)
    }

    /// `session` is connected and current: each feature hears it.
    package func sessionUp(_ session: any FeatureSession) { for feature in all { feature.sessionUp(session) } }

    /// `session` ended; `wasCurrent`: it was its peer's current one.
    package func sessionDown(_ session: any FeatureSession, wasCurrent: Bool) {
        for feature in all { feature.sessionDown(session, wasCurrent: wasCurrent) }
    }

    /// A whole message: the first feature that takes it has it.
    package func deliver(_ message: [UInt8], app: AppName, from session: any FeatureSession) -> Bool {
        for feature in all where feature.deliver(message, app: app, from: session) { return true }
        return false
    }

    /// The peer acknowledged messages on `session`.
    package func acknowledged(_ count: UInt64, on session: any FeatureSession) {
        for feature in all { feature.acknowledged(count, on: session) }
    }

    /// `session` has room again.
    package func room(on session: any FeatureSession) { for feature in all { feature.room(on: session) } }

    /// The peer refused `app`'s messages on `session`.
    package func appBusy(_ app: AppName, on session: any FeatureSession, text: String) {
        for feature in all { feature.appBusy(app, on: session, text: text) }
    }

    /// `peer`'s answer for `row`, with what each feature knows of it.
    package func describe(_ row: PeerSnapshot) -> PeerResult {
        var result = PeerResult(peer: row)
        for feature in all { feature.describe(&result) }
        return result
    }

    /// Each feature's part of `status`.
    package func describe(_ status: inout DaemonStatus) { for feature in all { feature.describe(&status) } }

    /// The daemon starts serving.
    package func start() { for feature in all { feature.start() } }

    /// Once a second.
    package func tick(now: Date) { for feature in all { feature.tick(now: now) } }

    /// The daemon stops.
    package func stop() { for feature in all { feature.stop() } }
}
