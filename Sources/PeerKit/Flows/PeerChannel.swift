import Dispatch
import Glibc
import PeerProtocol
import PeerSystem

/// A message channel to a peer (docs/control-protocol.md, "Message
/// channels"; ``PeerClient/channel(to:app:)``): messages both ways, in
/// order, through a socket peerd holds the other end of, with no JSON on
/// the way. ``send(_:)`` suspends while the channel is full; the channel
/// is an `AsyncSequence` of the peer's messages, pulled. It takes the
/// peer's messages from the moment the daemon has opened it, which (from a
/// 0.3.0 daemon on) is before ``PeerClient/channel(to:app:)`` returns; one
/// that arrived before went to the inbox, where
/// ``PeerClient/messages(app:)`` finds it.
///
///     let channel = try await client.channel(to: peer)
///     try await channel.send(Array("ping".utf8))
///     for try await reply in channel { print(reply.count) }
///     let counts = try await channel.close()
public final class PeerChannel: AsyncSequence, Sendable {
    /// One message.
    public typealias Element = [UInt8]
    /// Only PeerKit's errors.
    public typealias Failure = PeerError

    private let socket: FileDescriptor
    private let sending = DispatchQueue(label: "PeerKit.channel.send")
    private let receiving = DispatchQueue(label: "PeerKit.channel.receive")
    /// The daemon's answer, which comes when the channel is over.
    private let answer: Task<Result<ChannelInfo, PeerError>, Never>

    /// A channel on `socket`, whose daemon answer `answer` brings.
    init(socket: FileDescriptor, answer: Task<Result<ChannelInfo, PeerError>, Never>) {
        self.socket = socket
        self.answer = answer
    }

    deinit { socket.close() }

    /// Sends one message (at least one byte), waiting while the channel is full.
    public func send(_ message: [UInt8]) async throws(PeerError) {
        guard !message.isEmpty else { throw .daemon(.invalidParams, "a channel message has at least one byte", field: nil) }
        let socket = socket
        var frame: [UInt8] = withUnsafeBytes(of: UInt32(message.count).bigEndian) { Array($0) }
        frame += message
        let whole = frame
        try await BlockingIO.run(on: sending) { BlockingIO.writeAll(whole, to: socket) }
    }

    /// The peer's next message, or nil once the channel is over. A channel
    /// the daemon refused (`notConnected`, `busy`, …) throws its error here.
    public func receive() async throws(PeerError) -> [UInt8]? {
        let socket = socket
        let message = try await BlockingIO.run(on: receiving) { () -> Result<[UInt8]?, PeerError> in
            switch BlockingIO.readExactly(4, from: socket) {
            case .failure(let error): return .failure(error)
            case .success(nil): return .success(nil)
            case .success(let head?):
                let length = Int(head.reduce(0) { $0 << 8 | UInt32($1) })
                return BlockingIO.readExactly(length, from: socket).flatMap { bytes in
                    bytes.map { .success($0) } ?? .failure(.transport("the channel ended inside a message"))
                }
            }
        }
        if message == nil, case .failure(let refusal) = await answer.value { throw refusal }
        return message
    }

    /// Ends this side: once the peer has acknowledged every message sent,
    /// the daemon answers with the channel's counts.
    public func close() async throws(PeerError) -> ChannelInfo {
        shutdown(socket.rawValue, Int32(SHUT_WR))
        return try await answer.value.get()
    }

    /// The peer's messages.
    public func makeAsyncIterator() -> Iterator { Iterator(channel: self) }

    /// Pulls one message at a time.
    public struct Iterator: AsyncIteratorProtocol, Sendable {
        let channel: PeerChannel
        /// The next message, or nil once the channel is over.
        public mutating func next() async throws(PeerError) -> [UInt8]? { try await channel.receive() }
    }
}
