import Dispatch
import FoundationEssentials
import Glibc
import PeerProtocol
import PeerSystem

/// Datagrams both ways through one `datagrams` socket
/// (docs/control-protocol.md, "Datagrams"; ``PeerClient/datagrams(app:)``):
/// an `AsyncSequence` of the datagrams of the client's app that arrive,
/// pulled, and ``send(_:to:)`` for many datagrams a second. Nothing waits:
/// a datagram the socket cannot take now is dropped (``send(_:to:)`` says
/// so), and one that arrives while this reader is behind is lost and
/// counted (``PeerDatagram/lost``).
///
///     let datagrams = try await client.datagrams(app: "game")
///     try datagrams.send(Array("move 3 4".utf8), to: peer)
///     for try await datagram in datagrams { print(datagram.peer, datagram.data.count) }
public final class PeerDatagrams: AsyncSequence, Sendable {
    /// One datagram.
    public typealias Element = PeerDatagram
    /// Only PeerKit's errors.
    public typealias Failure = PeerError

    private let socket: DatagramSocket
    private let receiving = DispatchQueue(label: "PeerKit.datagrams.receive")
    /// The daemon's answer, which comes when the socket is closed.
    private let answer: Task<Result<DatagramsResult, PeerError>, Never>

    /// Datagrams on `socket`, whose daemon answer `answer` brings.
    init(socket: FileDescriptor, answer: Task<Result<DatagramsResult, PeerError>, Never>) {
        self.socket = DatagramSocket(descriptor: socket)
        self.answer = answer
    }

    deinit { socket.descriptor.close() }

    /// Sends one datagram to `peer` now; false when it was dropped here
    /// (the socket to the daemon was full). The daemon drops what it cannot
    /// send in turn, and counts it (``close()``'s `refused`).
    @discardableResult
    public func send(_ data: [UInt8], to peer: UUID) throws(PeerError) -> Bool {
        try socket.send(data, to: peer, wait: false)
    }

    /// The next datagram, or nil once the socket is over. A socket the
    /// daemon refused throws its error here.
    public func receive() async throws(PeerError) -> PeerDatagram? {
        let socket = socket
        let datagram = try await BlockingIO.run(on: receiving) { () -> Result<PeerDatagram?, PeerError> in
            Result { () throws(PeerError) in try socket.receive() }
        }
        if datagram == nil, case .failure(let refusal) = await answer.value { throw refusal }
        return datagram
    }

    /// Ends it: the daemon answers with what went through.
    public func close() async throws(PeerError) -> DatagramsResult {
        socket.finish()
        return try await answer.value.get()
    }

    /// The datagrams that arrive.
    public func makeAsyncIterator() -> Iterator { Iterator(datagrams: self) }

    /// Pulls one datagram at a time.
    public struct Iterator: AsyncIteratorProtocol, Sendable {
        let datagrams: PeerDatagrams
        /// The next datagram, or nil once the socket is over.
        public mutating func next() async throws(PeerError) -> PeerDatagram? { try await datagrams.receive() }
    }
}
