import Dispatch
import FoundationEssentials
import Glibc
import PeerCore
import PeerProtocol

/// One client on the control socket: reads request lines, writes responses
/// and events without ever blocking the daemon.
///
/// Output goes through a bounded ``OutboundQueue``. A subscriber that stops
/// reading fills it; the connection is then dropped with one final `error`
/// event (sent after any line already half-written, so framing stays whole)
/// and closed once that drains or `drainTimeout` passes.
///
/// Input is bounded three ways: at most 64 KiB is read per wakeup (the
/// source fires again while more waits), a line may not pass the
/// connection's limit, and the owner is asked through `holding` before an
/// unfinished line grows, so all clients together hold a bounded amount.
@MainActor
package final class ControlConnection {
    /// What the connection reports to its owner.
    package struct Callbacks {
        /// A complete request line arrived.
        package var line: @MainActor (ControlConnection, [UInt8]) -> Void
        /// The connection closed and its descriptor was released.
        package var closed: @MainActor (ControlConnection) -> Void
        /// The unfinished line now holds this many bytes; false refuses it.
        package var holding: @MainActor (ControlConnection, Int) -> Bool
        /// The queue has just drained (the client caught up).
        package var drained: @MainActor (ControlConnection) -> Void
        /// Bytes were written to the socket (see ``writtenTotal``).
        package var written: @MainActor (ControlConnection) -> Void

        /// Creates callbacks.
        package init(line: @escaping @MainActor (ControlConnection, [UInt8]) -> Void,
                    closed: @escaping @MainActor (ControlConnection) -> Void,
                    holding: @escaping @MainActor (ControlConnection, Int) -> Bool = { _, _ in true },
                    drained: @escaping @MainActor (ControlConnection) -> Void = { _ in },
                    written: @escaping @MainActor (ControlConnection) -> Void = { _ in }) {
            self.line = line
            self.closed = closed
            self.holding = holding
            self.drained = drained
            self.written = written
        }
    }

    /// A number for logs.
    package let number: Int
    /// Whether the client asked for events.
    package var isSubscriber = false
    /// A subscription in an app: which broadcast events reach it.
    package var eventFilter: AppEventFilter?

    /// Whether a broadcast event reaches this subscriber.
    package func admits(_ event: ControlEvent) -> Bool {
        guard var filter = eventFilter else { return true }
        defer { eventFilter = filter }
        return filter.passes(event)
    }
    /// Whether `message` events were sent here: then every event has the
    /// server's room for one largest message past the queue limit
    /// (``ControlServer/messageAllowance``), so a small event is not
    /// refused just because a message is still being written.
    package var carriesMessages = false
    /// Whether an answer is being worked on off the main actor (a write to
    /// disk): until it is sent, no further request is read or handled, so
    /// answers keep the order of their requests.
    package private(set) var awaitingReply = false
    /// Whole request lines read behind the one being answered, in order.
    private var parked: [[UInt8]] = []
    /// Descriptors the client sent (`SCM_RIGHTS`) that no request has
    /// taken yet, in order (docs/control-protocol.md, "File descriptors").
    private var descriptors: [FileDescriptor] = []
    /// Who the client is, from the kernel; nil if it could not be read.
    package let credentials: ClientCredentials?
    /// Who the client is, for admission and limits.
    package let client: ClientAdmission.Client
    /// Whether the connection is on its way out (dropped, finishing or closed).
    package var isClosing: Bool { closing || closed }
    /// Bytes queued for the client and not yet written.
    package var queuedBytes: Int { outbound.byteCount }
    /// Bytes ever queued for the client. A line queued when this was `n`
    /// is written whole once ``writtenTotal`` reaches `n + line.count`.
    package private(set) var queuedTotal: UInt64 = 0
    /// Bytes ever written to the socket (the kernel has them).
    package var writtenTotal: UInt64 { queuedTotal - UInt64(outbound.byteCount) }
    private let callbacks: Callbacks
    private let clock: DaemonClock
    private let logger: Logger
    private var lines: LineBuffer
    private var outbound: OutboundQueue
    private var channel: PollChannel!
    private var closing = false
    private var closed = false
    private let drainTimeout: Double = 5
    /// Queued bytes past which a line is written at once rather than at the
    /// end of the poller's batch: well below any queue limit, and about
    /// what a Unix socket takes in one write.
    static let gatherLimit = 64 * 1024
    /// While draining a last answer: closed by then at the latest.
    private var drainDeadline: Date?
    /// Whether output waits for the socket (the write source is armed).
    private var waitingToWrite = false
    /// When the unfinished line's first byte arrived.
    private var lineStarted: Date?
    /// When the last whole request arrived (or the connection opened).
    private var lastRequest: Date

    private var descriptor: FileDescriptor { channel.descriptor }

    /// Wraps an accepted, non-blocking descriptor and starts reading.
    package init(descriptor: FileDescriptor, number: Int, credentials: ClientCredentials?, client: ClientAdmission.Client, now: Date,
                queueLimit: Int, maxLine: Int, logger: Logger, callbacks: Callbacks, clock: DaemonClock = .system) {
        self.clock = clock
        self.number = number
        self.credentials = credentials
        self.client = client
        self.callbacks = callbacks
        self.logger = logger
        lastRequest = now
        lines = LineBuffer(maxLineBytes: maxLine)
        outbound = OutboundQueue(limit: queueLimit)
        channel = PollChannel(descriptor: descriptor,
                                  onReadable: { [weak self] in self?.readable() },
                                  onWritable: { [weak self] in self?.flush() })
    }

    /// Queues one line. Returns false when the queue is full or the
    /// connection is closing: the caller decides (a subscriber whose queue
    /// is full is dropped with ``drop(finalLine:)``).
    /// `extra` lets this one line pass the queue's limit by that much.
    @discardableResult
    package func send(_ line: [UInt8], extra: Int = 0) -> Bool {
        guard !closing, !closed else { return false }
        guard outbound.append(line, extra: extra) else { return false }
        queuedTotal += UInt64(line.count)
        // Lines gather until the poller's batch ends, up to a watermark:
        // one write for many, and never a queue near its limit for it.
        if outbound.byteCount >= Self.gatherLimit || !channel.writeAtBatchEnd() { flush() }
        return true
    }

    /// Drops queued output, sends `finalLine`, and closes once it drains.
    package func drop(finalLine: [UInt8]) {
        guard !closing, !closed else { return }
        outbound.truncateToCurrentLine()
        outbound.appendUnbounded(finalLine)
        finishAfterDrain()
    }

    /// Sends `finalLine` after what is queued, then closes.
    package func finish(finalLine: [UInt8]) {
        guard !closing, !closed else { return }
        outbound.appendUnbounded(finalLine)
        queuedTotal += UInt64(finalLine.count)
        finishAfterDrain()
    }

    /// Whether the client closed its end, looked for without reading (for a
    /// connection waiting on a long answer, whose reading is paused).
    package var hasHungUp: Bool {
        guard !closed else { return true }
        var byte: UInt8 = 0
        let count = recv(descriptor.rawValue, &byte, 1, Int32(MSG_PEEK | MSG_DONTWAIT))
        return count == 0 || (count < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)
    }

    /// Takes the first `count` descriptors the client sent (in the order
    /// sent), now the caller's to close; nil, taking none, when fewer arrived.
    package func takeDescriptors(_ count: Int) -> [FileDescriptor]? {
        guard count >= 0, count <= descriptors.count else { return nil }
        defer { descriptors.removeFirst(count) }
        return Array(descriptors.prefix(count))
    }

    /// Closes now, discarding queued output.
    package func close() {
        guard !closed else { return }
        closed = true
        closing = true
        for descriptor in descriptors { descriptor.close() }
        descriptors.removeAll()
        channel.close { [weak self] in
            guard let self else { return }
            self.callbacks.closed(self)
        }
    }

    /// The clock: an unfinished line past its deadline ends the
    /// connection, and so does idleness for a client outside the group.
    package func tick(now: Date) {
        if let drainDeadline, now >= drainDeadline { close() }
        guard !closing, !closed else { return }
        if let lineStarted, now.timeIntervalSince(lineStarted) >= ControlProtocol.incompleteLineTimeout {
            fail(ControlError(.badRequest, "request line unfinished after \(Int(ControlProtocol.incompleteLineTimeout)) s; end each request with a newline"))
            return
        }
        if !client.privileged, !isSubscriber, now.timeIntervalSince(lastRequest) >= ControlProtocol.othersIdleTimeout {
            logger.debug("control client \(number): idle for \(Int(ControlProtocol.othersIdleTimeout)) s outside the group; closing")
            close()
        }
    }

    private func finishAfterDrain() {
        closing = true
        channel.pauseReading()
        flush()
        guard !closed else { return }
        // The server ticks every connection it holds, this one included.
        drainDeadline = clock.now().addingTimeInterval(drainTimeout)
    }

    private func fail(_ error: ControlError) {
        _ = callbacks.holding(self, 0)
        if let line = try? JSONLines.encode(ControlResponse<EmptyResult>(id: nil, error: error)) {
            finish(finalLine: line)
        } else {
            close()
        }
    }

    /// The answer to the request just handled comes later (see
    /// ``awaitingReply``): reading stops until ``replyCompleted()``.
    package func replyDeferred() {
        awaitingReply = true
        channel.pauseReading()
    }

    /// The deferred answer was sent: the requests read behind it are
    /// handled, in order, and reading resumes.
    package func replyCompleted() {
        guard awaitingReply else { return }
        awaitingReply = false
        while !parked.isEmpty, !awaitingReply, !closing {
            callbacks.line(self, parked.removeFirst())
        }
        if !awaitingReply, !closing { channel.resumeReading() }
    }

    private func readable() {
        guard !closed, !closing, !awaitingReply else { return }
        var buffer = [UInt8](repeating: 0, count: 16 * 1024)
        // At most 64 KiB per wakeup: one busy client cannot hold the main
        // queue; Dispatch calls again while more is waiting.
        for _ in 0..<4 where !closed && !closing && !awaitingReply {
            let count: Int?
            do {
                // recvmsg, not read: a request may bring descriptors (SCM_RIGHTS).
                if let got = try DescriptorPassing.receive(on: descriptor, maxBytes: buffer.count, maxCount: DescriptorPassing.maxDescriptors) {
                    count = got.bytes.count
                    buffer.replaceSubrange(0..<got.bytes.count, with: got.bytes)
                    descriptors += got.descriptors
                    guard descriptors.count <= ControlProtocol.maxHeldDescriptors else {
                        fail(ControlError(.badRequest, "more than \(ControlProtocol.maxHeldDescriptors) file descriptors sent ahead of the requests that use them"))
                        return
                    }
                } else {
                    count = 0
                }
            } catch where error.errno == EAGAIN || error.errno == EWOULDBLOCK {
                count = nil
            } catch {
                logger.debug("control client \(number): \(error)")
                _ = callbacks.holding(self, 0)
                close()
                return
            }
            guard let count else { return }
            if count == 0 {
                // The client closed its end; finish writing what it asked for.
                _ = callbacks.holding(self, 0)
                if outbound.isEmpty { close() } else { finishAfterDrain() }
                return
            }
            guard let complete = lines.append(buffer[0..<count]) else {
                fail(ControlError(.badRequest, "request line longer than \(lines.maxLineBytes) bytes"))
                return
            }
            if !complete.isEmpty {
                lastRequest = clock.now()
                lineStarted = nil
            }
            if lines.pendingCount > 0, lineStarted == nil { lineStarted = clock.now() }
            guard callbacks.holding(self, lines.pendingCount) else {
                fail(ControlError(.overloaded, "the daemon holds too many unfinished request bytes from its clients; retry shortly"))
                return
            }
            for line in complete where !closing {
                if awaitingReply { parked.append(line) } else { callbacks.line(self, line) }
            }
        }
    }

    private func flush() {
        guard !closed else { return }
        let before = outbound.byteCount
        defer { if outbound.byteCount < before, !closed, !closing { callbacks.written(self) } }
        let drained: Bool
        do {
            drained = try outbound.flush { raw in try descriptor.send(raw) }
        } catch {
            logger.debug("control client \(number): \(error)")
            close()
            return
        }
        // A queue that had to wait for the socket and is now empty: the
        // client caught up, and whoever held back for it may go on.
        let caughtUp = drained && waitingToWrite
        waitingToWrite = !drained
        channel.armWrite(!drained)
        if drained && closing { close() }
        if caughtUp && !closing { callbacks.drained(self) }
    }
}
