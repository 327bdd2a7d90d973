import FoundationEssentials
import PeerProtocol

/// Messages taken from the daemon (``PeerClient/messages(app:)``), the
/// inbox's first, as an `AsyncSequence`; pulled like ``PeerEvents``.
///
///     for try await message in client.messages(app: "chat") {
///         print(message.from as Any, String(decoding: message.bytes, as: UTF8.self))
///     }
public struct PeerMessages: AsyncSequence, Sendable {
    /// One message.
    public typealias Element = PeerMessage
    /// Only PeerKit's errors.
    public typealias Failure = PeerError

    /// The taking subscription underneath.
    let events: PeerEvents

    /// The iterator.
    public func makeAsyncIterator() -> Iterator { Iterator(events: events.makeAsyncIterator()) }

    /// Pulls one message at a time.
    public struct Iterator: AsyncIteratorProtocol, Sendable {
        var events: PeerEvents.Iterator

        /// The next message.
        public mutating func next() async throws(PeerError) -> PeerMessage? {
            while true {
                guard let next = try await events.next() else { return nil }
                guard case .event(let event) = next, event.type == .message, let info = event.message else { continue }
                guard let message = PeerMessage(info: info) else { throw .transport("a message event whose data is not base64") }
                return message
            }
        }
    }
}
