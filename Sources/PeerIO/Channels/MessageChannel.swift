import Dispatch
import FoundationEssentials
import Glibc
import PeerCore
import PeerProtocol

/// One message channel (docs/control-protocol.md, "Message channels"): a
/// descriptor a client handed over, joined to a peer's session. What the
/// client writes, length-prefixed (``ChannelFraming``), goes to the peer
/// as messages; the peer's messages are written to it the same way. No
/// JSON and no base64 on either side: the high-rate path (issue 13).
///
/// Both directions hold back rather than grow. A message the session has
/// no room for stays in the read buffer, and reading stops until the
/// session drains (``pump()`` again). Output past ``outputHigh`` bytes
/// holds the session's reading until the client has read it down to
/// ``outputLow``.
@MainActor
final class MessageChannel {
    /// Output bytes past which the session stops reading from the peer.
    static let outputHigh = 512 * 1024
    /// Output bytes at or below which it reads again.
    static let outputLow = 64 * 1024
    /// Reads per wakeup: one busy client does not starve the rest.
    private static let readsPerWakeup = 4

    /// The peer it is joined to.
    let peer: UUID
    /// The app whose messages it carries.
    let app: AppName
    /// The client that asked; the channel is reset if it goes.
    let client: ControlConnection
    /// Whether the peer's messages come to this channel; false for one
    /// opened for sending alone (``ChannelOptions/receive``).
    let receiving: Bool
    private let maxMessage: Int
    private let answer: @MainActor (ControlReply) -> Void
    private var io: PollChannel!
    private let inbox = InboundBuffer(readSize: 64 * 1024, largestFrame: 0)
    /// A message larger than the read buffer, gathered across reads.
    private var gathered: [UInt8] = []
    /// The size of the gathered message's frame (prefix included), when one is being gathered.
    private var gatheredTarget: Int?
    private var output = OutputBuffer(keepCapacity: 1 << 20)
    private var flushScheduled = false
    /// Whether the session is held for this channel's output.
    private(set) var holdingSession = false
    /// The client ended its side: nothing more is read.
    private(set) var inputEnded = false
    /// The session's numbers of this channel's messages not yet
    /// acknowledged, as runs (other clients' messages to the peer may come
    /// between): one run while only the channel sends.
    private var unacknowledged: [ClosedRange<UInt64>] = []
    /// Messages handed to the session.
    private(set) var sent: Int64 = 0
    /// Of those, how many the peer acknowledged.
    private(set) var acknowledged: Int64 = 0
    /// Messages from the peer queued for the client.
    private(set) var received: Int64 = 0
    /// Whether it is over (answered, its descriptor closed).
    private(set) var finished = false
    /// Asks for the peer's session (given by the desk at init).
    private let session: @MainActor () -> PeerSession?
    /// Called once it is over (given by the desk at init).
    private let onFinished: @MainActor (MessageChannel) -> Void

    /// Takes `descriptor` (made non-blocking here).
    /// `session` finds the peer's session; `onFinished` hears that the
    /// channel is over.
    init(descriptor: FileDescriptor, peer: UUID, app: AppName, receiving: Bool = true, client: ControlConnection, maxMessage: Int,
         answer: @escaping @MainActor (ControlReply) -> Void, session: @escaping @MainActor () -> PeerSession?,
         onFinished: @escaping @MainActor (MessageChannel) -> Void) {
        self.receiving = receiving
        self.session = session
        self.onFinished = onFinished
        self.peer = peer
        self.app = app
        self.client = client
        self.maxMessage = maxMessage
        self.answer = answer
        try? descriptor.setNonBlocking()
        io = PollChannel(descriptor: descriptor, onReadable: { [weak self] in self?.pump() },
                             onWritable: { [weak self] in self?.flush() })
    }

    /// Bytes queued for the client and not yet written.
    var queuedOutput: Int { output.count }

    // MARK: Client to peer

    /// Sends what was read and reads more, while the session takes it.
    func pump() {
        guard !finished, !inputEnded else { return }
        guard let session = session(), session.isConnected else { return io.pauseReading() }
        for _ in 0..<Self.readsPerWakeup {
            guard sendWhole(on: session) else {
                io.pauseReading()   // the session's room comes back through pump()
                return
            }
            let count: Int?
            do { count = try inbox.read(from: io.descriptor) } catch {
                return reset("reading the channel: \(error)")
            }
            guard let count else {
                io.resumeReading()
                return
            }
            if count == 0 {
                // The end is always readable: wait for room without spinning.
                guard sendWhole(on: session) else { return io.pauseReading() }
                guard inbox.pendingCount == 0, gatheredTarget == nil else { return reset("the client ended its side inside a message") }
                return endInput()
            }
        }
        _ = sendWhole(on: session)
        io.resumeReading()
    }

    /// Hands every whole message read to the session, in order; false when
    /// it has no room (what is left waits, unread by the session).
    private func sendWhole(on session: PeerSession) -> Bool {
        if gatheredTarget != nil {
            let unread = inbox.unread
            let take = min(unread.count, gatheredTarget! - gathered.count)
            gathered.append(contentsOf: UnsafeRawBufferPointer(rebasing: unread[0..<take]))
            inbox.consume(take)
            guard gathered.count == gatheredTarget else { return true }
            guard send(Array(gathered[ChannelFraming.prefixLength...]), on: session) else { return false }
            gathered = []
            gatheredTarget = nil
        }
        while true {
            let unread = UnsafeRawBufferPointer(inbox.unread)
            let scan: ChannelFraming.Scan
            do { scan = try ChannelFraming.scan(unread, maxMessage: maxMessage) } catch {
                reset("\(error)")
                return false
            }
            switch scan {
            case .frame(let range):
                guard send(Array(unread[range]), on: session) else { return false }
                inbox.consume(range.upperBound)
            case .needMore(let total?) where total > inbox.readSize:
                // Too large for the read buffer: gathered in one of its own.
                gatheredTarget = total
                gathered.reserveCapacity(total)
                gathered.append(contentsOf: unread)
                inbox.consume(unread.count)
                return true
            case .needMore:
                return true
            }
        }
    }

    private func send(_ message: [UInt8], on session: PeerSession) -> Bool {
        guard let number = session.send(message, app: app) else { return false }
        if let last = unacknowledged.last, last.upperBound + 1 == number {
            unacknowledged[unacknowledged.count - 1] = last.lowerBound...number
        } else {
            unacknowledged.append(number...number)
        }
        sent += 1
        return true
    }

    /// The client ended its side: the channel is over once the peer has
    /// acknowledged everything sent.
    private func endInput() {
        inputEnded = true
        io.pauseReading()
        inbox.release()
        if acknowledged >= sent { return finish(detail: nil) }
        // The client waits for the last acknowledgement: ask for it now.
        session()?.askForAcknowledgement()
    }

    /// The peer's daemon acknowledged the session's first `count` messages.
    func acknowledged(upTo count: UInt64) {
        while let run = unacknowledged.first, run.lowerBound <= count {
            if run.upperBound <= count {
                acknowledged += Int64(run.count)
                unacknowledged.removeFirst()
            } else {
                acknowledged += Int64(count - run.lowerBound + 1)
                unacknowledged[0] = (count + 1)...run.upperBound
            }
        }
        if inputEnded, acknowledged >= sent { finish(detail: nil) }
    }

    // MARK: Peer to client

    /// A message from the peer: queued for the client. Returns whether the
    /// session must hold its reading (the client is behind).
    func deliver(_ message: [UInt8]) -> Bool {
        output.append { bytes in
            ChannelFraming.appendPrefix(message.count, to: &bytes)
            bytes.append(contentsOf: message)
        }
        received += 1
        scheduleFlush()
        if queuedOutput > Self.outputHigh { holdingSession = true }
        return holdingSession
    }

    private func scheduleFlush() {
        guard !flushScheduled else { return }
        flushScheduled = true
        DispatchQueue.main.async { [weak self] in
            MainActor.assumeIsolated {
                self?.flushScheduled = false
                self?.flush()
            }
        }
    }

    private func flush() {
        guard !finished else { return }
        do { _ = try output.write(to: io.descriptor.rawValue) } catch {
            return reset("writing to the channel: \(error)")
        }
        io.armWrite(queuedOutput > 0)
        if holdingSession, queuedOutput <= Self.outputLow {
            holdingSession = false
            session()?.holdReading(false, for: .channel)
        }
    }

    // MARK: The end

    /// Ends it as reset, with `detail`.
    func reset(_ detail: String) { finish(detail: detail) }

    private func finish(detail: String?) {
        guard !finished else { return }
        finished = true
        if holdingSession { session()?.holdReading(false, for: .channel) }
        io.close()
        inbox.release()
        output.release()
        answer(.answer(.channel, ChannelInfo(peer: peer, state: detail == nil ? "closed" : "reset", sent: sent,
                                   acknowledged: acknowledged, received: received, detail: detail)))
        onFinished(self)
    }
}
