import PeerCore

/// What a ``FrameSender`` tells the connection it sends for.
@MainActor
protocol FrameSenderOwner: AnyObject {
    /// Sealing failed (a nonce ran out): the connection ends.
    func senderFailed(_ why: String)
    /// Bulk work done on the sealer gave its room back.
    func senderHasRoom()
}

/// The sending half of one encrypted connection (a session's, or its bulk
/// lane's): frames are sealed in nonce order and queued on its
/// ``SessionTransport``, small ones in place while the ``SealLane`` is
/// idle, large ones and everything behind them on the lane's thread
/// (issue 25, point 2). It counts the bulk room: bytes queued to the
/// socket and bulk work on the lane, against ``highWater``.
@MainActor
final class FrameSender {
    /// Plaintexts of at least this many bytes are sealed on the lane even
    /// when it is idle: a large frame's sealing leaves the main actor.
    /// Smaller ones are sealed in place while the lane is idle, which
    /// spares them two thread hops.
    static let laneFrame = 16 * 1024

    /// The connection the frames go to.
    let transport: SessionTransport
    /// Queued bytes past which bulk frames wait (``room``).
    let highWater: Int
    private weak var owner: (any FrameSenderOwner)?
    /// The sending cipher and its thread, once armed (after the handshake).
    private var sealer: SealLane?
    /// Jobs queued on the lane whose outcome has not come back: while any
    /// is out, every frame goes through the lane, in order.
    private var jobs = 0
    /// Bulk work queued on the lane, in bytes: it counts against ``room``
    /// like bytes queued to the socket.
    private var cost = 0

    /// Where a bulk lane's frames are written, on the sealer's thread
    /// (nil: a session's, written by its transport on the main actor).
    private var writer: LaneSocketWriter?

    /// A sender for `transport`, whose bulk frames wait past `highWater`
    /// bytes queued.
    init(transport: SessionTransport, highWater: Int, owner: any FrameSenderOwner) {
        self.transport = transport
        self.highWater = highWater
        self.owner = owner
    }

    /// Whether it has its cipher (nothing is sealed before).
    var isArmed: Bool { sealer != nil }

    /// Takes the sending cipher, once the handshake made it; `writer`
    /// for a bulk lane (every frame is then sealed and written on the
    /// sealer's thread, at a low priority).
    func arm(_ cipher: NoiseCipherState, writer: LaneSocketWriter? = nil) {
        guard sealer == nil else { return }
        self.writer = writer
        sealer = SealLane(cipher: cipher, writer: writer)
    }

    /// Stops a bulk lane's writes (jobs left drop their frames).
    func stop() { writer?.stop() }

    /// Bytes of bulk frames that may be queued now.
    var room: Int { max(0, highWater - transport.queuedBytes - cost) }

    /// Bulk work queued on the lane, in bytes.
    var pendingCost: Int { cost }

    /// Seals and queues one plaintext message. `answer`: a frame the peer
    /// asked for (a pong), bounded on its own.
    func send(_ plaintext: [UInt8], answer: Bool = false) {
        var frame = [UInt8]()
        frame.reserveCapacity(2 + plaintext.count + NoiseCipherState.tagLength)
        frame += [0, 0]
        frame += plaintext
        frame += [UInt8](repeating: 0, count: NoiseCipherState.tagLength)
        seal(&frame, count: plaintext.count, answer: answer)
    }

    /// Builds one bulk frame in place: `write` puts up to `capacity`
    /// plaintext bytes into it and says how many (nil: send nothing); it
    /// is then sealed where it is and queued. Returns the bytes sent.
    func transmitBulk(capacity: Int, write: (UnsafeMutableRawBufferPointer) -> Int?) -> Int? {
        guard isArmed else { return nil }
        var frame = transport.takeFrame(count: 2 + capacity + NoiseCipherState.tagLength)
        let count = frame.withUnsafeMutableBytes { raw in write(UnsafeMutableRawBufferPointer(rebasing: raw[2..<(2 + capacity)])) }
        guard let count, count <= capacity else { return nil }
        frame.removeLast(capacity - count)
        seal(&frame, count: count, cost: count)
        return count
    }

    /// Builds one bulk frame on the lane (``PeerSession/transmitBulkLater(capacity:cost:fill:dropped:)``).
    func transmitBulkLater(capacity: Int, cost: Int, fill: @escaping @Sendable (UnsafeMutableRawBufferPointer) -> Int?,
                           dropped: @escaping @MainActor @Sendable () -> Void) -> Bool {
        let frame = capacity == 0 ? [] : transport.takeFrame(count: 2 + capacity + NoiseCipherState.tagLength)
        return enqueue(frame, .fill(fill), cost: cost, dropped: dropped)
    }

    /// Sends a plaintext made on the lane after the work queued before it
    /// (nil from `make` sends nothing).
    func sendLater(_ make: @escaping @Sendable () -> [UInt8]?) {
        enqueue([], .build(make), cost: 0)
    }

    /// Seals the plaintext at offset 2 of `frame`, writes the length
    /// prefix, and queues it: in place while the lane is idle and the
    /// frame small, else on the lane behind what is there (nonces go in
    /// the order frames reach the socket).
    private func seal(_ frame: inout [UInt8], count: Int, answer: Bool = false, cost: Int = 0) {
        guard let sealer else { return }
        // A lane's frames are all written on the sealer's thread, in order.
        guard jobs > 0 || count >= Self.laneFrame || writer != nil else {
            do { try sealer.sealNow(&frame, count: count) } catch { return owner?.senderFailed("\(error)") ?? () }
            return transport.send(framed: frame, answer: answer)
        }
        enqueue(frame, .ready(count: count), cost: cost, answer: answer)
    }

    /// Queues a job on the lane and takes its outcome back in order: a
    /// sealed frame to the socket, a failed seal ends the connection, and
    /// bulk work done gives its room back.
    @discardableResult
    private func enqueue(_ frame: consuming [UInt8], _ make: SealLane.Make, cost: Int, answer: Bool = false,
                         dropped: (@MainActor @Sendable () -> Void)? = nil) -> Bool {
        guard let sealer else { return false }
        jobs += 1
        self.cost += cost
        sealer.run(frame, make) { [weak self] outcome in
            guard let self else { return }
            jobs -= 1
            self.cost -= cost
            switch outcome {
            case .sealed(let sealed):
                // Its flush asks for the next bulk frame once this one is out.
                transport.send(framed: sealed, answer: answer)
            case .sent(let buffer):
                transport.recycle(buffer)
                owner?.senderHasRoom()
            case .done:
                if cost > 0 { owner?.senderHasRoom() }
            case .dropped:
                dropped?()
                if cost > 0 { owner?.senderHasRoom() }
            case .failed(let error):
                owner?.senderFailed("\(error)")
            }
        }
        return true
    }
}
