import PeerCore
import PeerProtocol

/// What a request handler answers. The control layer alone encodes it and
/// writes it to the client (``ControlServer/respond(_:id:to:)``).
package enum ControlReply {
    /// A result.
    case result(any Codable & Sendable)
    /// An error.
    case error(ControlError)
    /// `subscribe`: the result, then the held events to replay, after which
    /// the connection is a subscriber and `then` (if any) runs with it.
    case subscribed(SubscribeResult, replay: [ControlEvent], then: (@MainActor (ControlConnection) -> Void)?)
    /// A result, then `then` runs with the connection once the answer is
    /// queued on it (`take` watches it being written).
    case resultThen(any Codable & Sendable, then: @MainActor (ControlConnection) -> Void)

    /// The answer comes later, once work off the main actor is done (a
    /// write to disk): `start` begins it and calls its argument, once, on
    /// the main actor, with the answer. The connection reads nothing more
    /// until then, so answers keep the order of their requests.
    case later(@MainActor (_ answer: @escaping @MainActor (ControlReply) -> Void) -> Void)

    /// `call`'s result. The table of calls (``ControlCall``, PeerProtocol)
    /// types it, as it types the clients' decoding: a method answers with
    /// its own result type, or this does not compile.
    package static func answer<R>(_ call: ControlCall<R>, _ value: R) -> ControlReply { .result(value) }

    /// `call`'s result, then `then` (``resultThen(_:then:)``), typed as ``answer(_:_:)``.
    package static func answer<R>(_ call: ControlCall<R>, _ value: R, then: @escaping @MainActor (ControlConnection) -> Void) -> ControlReply {
        .resultThen(value, then: then)
    }

    /// `call`'s result or an error, typed as ``answer(_:_:)``.
    package static func from<R>(_ call: ControlCall<R>, _ outcome: Result<R, ControlError>) -> ControlReply {
        switch outcome {
        case .success(let value): return .result(value)
        case .failure(let error): return .error(error)
        }
    }
}

extension Result where Success == ControlReply, Failure == ControlError {
    /// The reply, or the error as one (a request whose checks come first).
    var reply: ControlReply {
        switch self {
        case .success(let reply): reply
        case .failure(let error): .error(error)
        }
    }
}
