import Dispatch
import FoundationEssentials
import Glibc
import PeerCore

/// The socket side of one session: a non-blocking TCP connection serviced
/// by Dispatch on the main queue, cut into length-prefixed frames on the
/// way in, and a bounded ``OutboundQueue`` with ``WriteWatermarks`` on the
/// way out. It knows nothing of Noise or of messages; ``PeerSession`` gives
/// it frames and takes frames from it (``SessionTransportDelegate``).
///
/// Reading stops while output is backed up past the high watermark, or
/// while the owner holds it for its clients, so a peer that does not read
/// cannot make us buffer without bound, and neither can one that sends
/// faster than our clients take.
@MainActor
package final class SessionTransport {
    /// Bytes asked of the socket per read: several full frames at once.
    static let readSize = 256 * 1024

    /// How long a closing transport waits for its last frames to go out.
    package static let lingerSeconds: TimeInterval = 2

    /// Set once in init; implicitly unwrapped only because its callbacks
    /// capture `self`.
    private var channel: PollChannel!
    private weak var delegate: (any SessionTransportDelegate)?
    private let clock: DaemonClock
    /// Whether this is a dial whose TCP connect has not completed yet.
    package private(set) var connecting: Bool
    /// What was read and is not yet handled; frames are opened in it.
    /// Small until the session is accepted (``maxFrame``).
    private let inbox = InboundBuffer(readSize: 8192, largestFrame: 2 + 8192)
    private var outbound: OutboundQueue
    private var watermarks: WriteWatermarks
    private var flushScheduled = false
    /// Set once the owner is done: the last frames go out, then the socket closes.
    private var closeAfterFlush = false
    /// While closing with output left: the socket is closed by then at the latest.
    private var lingerUntil: Date?
    private var closed = false
    /// Who holds reading back for the local clients (see ``holdReading(_:for:)``).
    package private(set) var readHolds: ReadHolds = []
    /// Bulk frame buffers, reused once written (no allocation per frame).
    private var framePool = FramePool()

    /// A buffer of `count` bytes for a bulk frame, from the pool when it has one.
    package func takeFrame(count: Int) -> [UInt8] {
        tookFrame = true
        return framePool.take(count: count)
    }

    /// Takes back a bulk frame's buffer written elsewhere (a lane's writer).
    package func recycle(_ frame: consuming [UInt8]) { framePool.give(frame) }

    /// Whether a bulk frame was built since the last ``tickFrames()``.
    private var tookFrame = false

    /// Clock tick: a pool not used for a whole tick lets its buffers go,
    /// and so does the read buffer unless bulk bytes came in the tick
    /// (``InboundBuffer/settle()``).
    package func tickFrames() {
        if !tookFrame { framePool.drain() }
        tookFrame = false
        inbox.settle()
    }
    /// Holds on delivering frames (``holdDelivery()``): while any is on,
    /// frames already read wait in ``parked`` and nothing more is read.
    private var deliveryHolds = 0
    /// Whole frames read while delivery was held, in order.
    private var parked: [[UInt8]] = []
    /// Set once another reader took the socket's reading over
    /// (``handOverReading()``): this transport only writes from then on.
    private var readingHandedOver = false

    /// Stops reading for good and returns the bytes read past the frame
    /// being handled now: a bulk lane's own reader (``LaneReader``) reads
    /// from here on, starting with these. Call it while handling that frame,
    /// and return false from ``SessionTransportDelegate/transportReceived(_:)``.
    package func handOverReading() -> [UInt8] {
        readingHandedOver = true
        channel.pauseReading()
        let unread = Array(inbox.unread)
        inbox.consume(unread.count)
        inbox.release()
        return unread
    }

    /// Takes `descriptor`; `connecting` when it is a dial whose connect is
    /// under way (it completes when the socket becomes writable).
    package init(descriptor: FileDescriptor, connecting: Bool, sendLimit: Int, delegate: any SessionTransportDelegate, clock: DaemonClock) {
        self.connecting = connecting
        self.delegate = delegate
        self.clock = clock
        outbound = OutboundQueue(limit: sendLimit)
        watermarks = WriteWatermarks(sendLimit: sendLimit)
        channel = PollChannel(descriptor: descriptor,
                                  onReadable: { [weak self] in self?.readable() },
                                  onWritable: { [weak self] in self?.writable() })
        if connecting { channel.armWrite(true) }
    }

    /// Bytes waiting to be written.
    package var queuedBytes: Int { outbound.byteCount }
    /// The connection's descriptor (its peer's address is the datagram
    /// path's, ``PeerSession/datagramAddress(port:mapped:)``).
    var descriptor: FileDescriptor { channel.descriptor }
    /// The largest frame accepted from the peer. Until the session is
    /// accepted it is 8 KiB, and the read buffer 16 KiB: an unauthenticated
    /// peer cannot make us hold more. Raising it grows the read buffer to
    /// ``readSize`` reads.
    package var maxFrame = 8192 {
        // Before the next read, not now: a frame being handled lies in the buffer.
        didSet { resizeDue = true }
    }
    /// Whether the read buffer must fit a new ``maxFrame`` before the next read.
    private var resizeDue = false
    /// Whether the transport is closing or closed.
    package var isClosing: Bool { closeAfterFlush || closed }

    /// Queues one frame (its length prefix is added here). Frames made in
    /// one main-queue turn go out together at the end of the turn: with
    /// `TCP_NODELAY` that is one segment where Nagle would have waited.
    package func send(frame payload: [UInt8]) {
        send(framed: WireCodec.frame(payload))
    }

    /// Queues one frame that already has its length prefix (a bulk frame
    /// built in place goes out as it is, without a copy). `answer` marks a
    /// frame the peer asked for (a pong), bounded on its own
    /// (``WriteWatermarks/answerHigh``).
    package func send(framed frame: [UInt8], answer: Bool = false) {
        guard !closed else { return }
        outbound.appendCoalescing(frame, answer: answer)
        checkWatermarks()
        scheduleFlush()
    }

    /// Stops (or resumes) reading from the peer because the clients that
    /// receive its messages are behind: the flow is held back toward them,
    /// rather than queued or dropped. Each holder sets and clears its own
    /// hold: reading goes on only once none is left.
    package func holdReading(_ hold: Bool, for holder: ReadHolds) {
        let before = readHolds
        if hold { readHolds.formUnion(holder) } else { readHolds.subtract(holder) }
        guard readHolds != before else { return }
        updateReading()
        // Frames left in the read buffer by the hold go on in a turn of
        // their own: no new byte may come to wake the reader for them.
        if !hold, !before.isDisjoint(with: Self.holdsStoppingFrames), readHolds.isDisjoint(with: Self.holdsStoppingFrames),
           inbox.pendingCount > 0 {
            DispatchQueue.main.async { [weak self] in
                MainActor.assumeIsolated { self?.deliverBuffered() }
            }
        }
    }

    /// Holds that stop the frames already read, not only the next read: a
    /// subscriber half its queue behind would otherwise get the rest of a
    /// 256 KiB read at once (some 2,000 small messages, past its queue),
    /// and what did not fit would go to the inbox on disk, and every later
    /// message from that peer behind it.
    static let holdsStoppingFrames: ReadHolds = .subscribers

    /// Hands over the frames a hold left in the read buffer, then reads on.
    private func deliverBuffered() {
        guard !isClosing, deliveryHolds == 0, parked.isEmpty, readHolds.isDisjoint(with: Self.holdsStoppingFrames) else { return }
        guard deliverWholeFrames() else { return }
        updateReading()
    }

    /// Stops handing frames to the session until ``releaseDelivery()``:
    /// for work the session's next frame must not overtake (a write to
    /// disk). Frames already read wait, in order; nothing more is read.
    package func holdDelivery() {
        deliveryHolds += 1
        updateReading()
    }

    /// Ends one ``holdDelivery()``. When none is left, the waiting frames
    /// are handed over, in order, in a main-queue turn of their own, and
    /// reading resumes.
    package func releaseDelivery() {
        guard deliveryHolds > 0 else { return }
        deliveryHolds -= 1
        guard deliveryHolds == 0 else { return }
        DispatchQueue.main.async { [weak self] in
            MainActor.assumeIsolated { self?.deliverParked() }
        }
    }

    private func deliverParked() {
        while deliveryHolds == 0, !isClosing, !parked.isEmpty {
            var frame = parked.removeFirst()
            guard frame.withUnsafeMutableBytes({ delegate?.transportReceived($0) }) == true else { return }
        }
        updateReading()
    }

    /// Whether the peer has read nothing of a backed-up queue for too long.
    package func isStalled(now: Date) -> Bool { watermarks.isStalled(now: now) }
    /// The stall limit that applies now, for the words of the close.
    package var stallTimeout: TimeInterval { watermarks.activeStallTimeout }
    /// Whether the pause is for answers the peer never read (pongs).
    package var stalledOnAnswers: Bool { watermarks.pausedForAnswers }

    /// The owner is done: what is queued goes out, then the socket closes,
    /// within ``lingerSeconds`` at most (see ``tick(now:)``).
    package func closeAfterSending() {
        closeAfterFlush = true
        if outbound.isEmpty || connecting {
            teardown()
        } else {
            lingerUntil = clock.now().addingTimeInterval(Self.lingerSeconds)
            flush()
        }
    }

    /// Clock tick: a linger that ran out closes the socket. Returns whether
    /// the socket is closed.
    @discardableResult
    package func tick(now: Date) -> Bool {
        if let lingerUntil, now >= lingerUntil { teardown() }
        return closed
    }

    // MARK: Reading

    private func readable() {
        if connecting, !closed {
            // A refused connect can be reported as readable (the hang-up)
            // and never as writable: its error is taken here too, or the
            // dial would wait for the handshake deadline.
            if let error = TCPConnector.finishConnect(channel.descriptor) {
                delegate?.transportConnectFailed(String(cString: strerror(error)))
            }
            return
        }
        guard !closed, !closeAfterFlush, !readingHandedOver else { return }
        // Bounded work per wakeup keeps one fast peer from starving the rest.
        for _ in 0..<4 {
            // Output backed up, the clients are behind, or delivery is held: read no more now.
            if watermarks.isPaused || !readHolds.isEmpty || deliveryHolds > 0 || !parked.isEmpty { return }
            if resizeDue {
                resizeDue = false
                inbox.resize(readSize: maxFrame > 8192 ? Self.readSize : 8192, largestFrame: 2 + maxFrame)
            }
            let count: Int?
            do { count = try inbox.read(from: channel.descriptor) } catch {
                delegate?.transportBroke("\(error)")
                return
            }
            guard let count else { return }
            if count == 0 {
                delegate?.transportBroke("the connection was closed")
                return
            }
            delegate?.transportBytesArrived()
            guard deliverWholeFrames() else { return }
        }
    }

    /// Hands the whole frames read to the session, in order, where they
    /// lie; while delivery is held they are copied aside instead (bounded
    /// by one read: nothing more is read while held), and while a
    /// subscriber holds the session they stay in the buffer
    /// (``holdsStoppingFrames``). A bad length is reported after the
    /// frames before it. False when the session wants no more.
    private func deliverWholeFrames() -> Bool {
        while true {
            // Held for a subscriber: the rest waits where it lies.
            guard readHolds.isDisjoint(with: Self.holdsStoppingFrames) else { return true }
            let frame: UnsafeMutableRawBufferPointer?
            do { frame = try inbox.nextFrame(maxFrame: maxFrame) } catch {
                delegate?.transportCorrupt("\(error)")
                return false
            }
            guard let frame else { return true }
            if deliveryHolds > 0 || !parked.isEmpty {
                parked.append(Array(frame))
                continue
            }
            guard !isClosing, delegate?.transportReceived(frame) == true else { return false }
        }
    }

    /// Reads while neither the watermarks nor the clients hold it back.
    private func updateReading() {
        guard !isClosing else { return }
        if readingHandedOver || !readHolds.isEmpty || watermarks.isPaused || deliveryHolds > 0 || !parked.isEmpty {
            channel.pauseReading()
        } else {
            channel.resumeReading()
        }
    }

    // MARK: Writing

    private func writable() {
        if connecting {
            if let error = TCPConnector.finishConnect(channel.descriptor) {
                delegate?.transportConnectFailed(String(cString: strerror(error)))
                return
            }
            connecting = false
            delegate?.transportConnected()
        }
        flush()
    }

    private func scheduleFlush() {
        guard !flushScheduled else { return }
        flushScheduled = true
        DispatchQueue.main.async { [weak self] in
            MainActor.assumeIsolated {
                guard let self else { return }
                self.flushScheduled = false
                self.flush()
            }
        }
    }

    /// Bulk refills one flush may take (each adds at most one bulk frame,
    /// ``PeerSession/bulkHighWater``): enough to keep the kernel's unsent
    /// queue fed within one turn, few enough to let other work in. When a
    /// refill read, hashed and sealed a 64 KiB chunk on the main actor
    /// (about 0.15 ms here), 4 held it about 0.6 ms and 16 held it 2.4 ms,
    /// at no better throughput; a file's chunk is now made on the
    /// session's lane (``SealLane``), and a refill only queues it there.
    static let refillsPerFlush = 4

    private func flush() {
        guard !closed, !channel.isClosing, !connecting else { return }
        let descriptor = channel.descriptor
        // The userspace queue holds at most one bulk frame: when it has gone
        // to the kernel, the owner is asked for the next one at once, and it
        // is written in this same turn, until the kernel's unsent queue is
        // full (TCP_NOTSENT_LOWAT answers EAGAIN) or the senders are done.
        for _ in 0..<Self.refillsPerFlush {
            let drained: Bool
            do {
                drained = try outbound.flushVectored({ vectors in try descriptor.send(vectors) },
                                                     recycle: { [self] frame in framePool.give(frame) })
            } catch {
                outbound.truncateToCurrentLine()
                if closeAfterFlush { teardown() } else { delegate?.transportBroke("\(error)") }
                return
            }
            channel.armWrite(!drained)
            checkWatermarks()
            if drained && closeAfterFlush { teardown() }
            guard !closeAfterFlush, !closed, outbound.byteCount < PeerSession.bulkHighWater / 2 else { return }
            let before = outbound.byteCount
            delegate?.transportHasRoom()
            // Nothing new, or the kernel is full: the next writability
            // (or the senders' own news) goes on from here.
            guard drained, outbound.byteCount > before else { return }
        }
    }

    /// Applies the watermarks to the queue's size now.
    private func checkWatermarks() {
        guard !isClosing else { return }
        _ = watermarks.queued(outbound.memoryCost, answers: outbound.answerBytes, now: clock.now())
        updateReading()
    }

    private func teardown() {
        guard !closed else { return }
        closed = true
        lingerUntil = nil
        channel.close()
    }
}
