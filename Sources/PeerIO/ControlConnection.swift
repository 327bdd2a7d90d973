import Dispatch
import Glibc
import PeerCore

/// One client on the control socket: reads request lines, writes responses
/// and events without ever blocking the daemon.
///
/// Output goes through a bounded ``OutboundQueue``. A subscriber that stops
/// reading fills it; the connection is then dropped with one final `error`
/// event (sent after any line already half-written, so framing stays whole)
/// and closed once that drains or `drainTimeout` passes.
@MainActor
public final class ControlConnection {
    /// What the connection reports to its owner.
    public struct Callbacks {
        /// A complete request line arrived.
        public var line: @MainActor (ControlConnection, [UInt8]) -> Void
        /// The connection closed and its descriptor was released.
        public var closed: @MainActor (ControlConnection) -> Void

        /// Creates callbacks.
        public init(line: @escaping @MainActor (ControlConnection, [UInt8]) -> Void,
                    closed: @escaping @MainActor (ControlConnection) -> Void) {
            self.line = line
            self.closed = closed
        }
    }

    /// A number for logs.
    public let number: Int
    /// Whether the client asked for events.
    public var isSubscriber = false
    /// Who the client is, from the kernel; nil if it could not be read.
    public var credentials: ClientCredentials?
    private let callbacks: Callbacks
    private let logger: Logger
    private var lines: LineBuffer
    private var outbound: OutboundQueue
    private var channel: DispatchChannel!
    private var closing = false
    private var closed = false
    private let drainTimeout: Double = 5

    private var descriptor: FileDescriptor { channel.descriptor }

    /// Wraps an accepted, non-blocking descriptor and starts reading.
    public init(descriptor: FileDescriptor, number: Int, queueLimit: Int, maxLine: Int, logger: Logger, callbacks: Callbacks) {
        self.number = number
        self.callbacks = callbacks
        self.logger = logger
        lines = LineBuffer(maxLineBytes: maxLine)
        outbound = OutboundQueue(limit: queueLimit)
        channel = DispatchChannel(descriptor: descriptor,
                                  onReadable: { [weak self] in self?.readable() },
                                  onWritable: { [weak self] in self?.flush() })
    }

    /// Queues one line. Returns false when the queue is full: the caller
    /// decides (a subscriber is then dropped with ``drop(finalLine:)``).
    @discardableResult
    public func send(_ line: [UInt8]) -> Bool {
        guard !closing, !closed else { return false }
        guard outbound.append(line) else { return false }
        flush()
        return true
    }

    /// Drops queued output, sends `finalLine`, and closes once it drains.
    public func drop(finalLine: [UInt8]) {
        guard !closing, !closed else { return }
        outbound.truncateToCurrentLine()
        outbound.appendUnbounded(finalLine)
        finishAfterDrain()
    }

    /// Sends `finalLine` after what is queued, then closes.
    public func finish(finalLine: [UInt8]) {
        guard !closing, !closed else { return }
        outbound.appendUnbounded(finalLine)
        finishAfterDrain()
    }

    /// Closes now, discarding queued output.
    public func close() {
        guard !closed else { return }
        closed = true
        closing = true
        channel.close { [weak self] in
            guard let self else { return }
            self.callbacks.closed(self)
        }
    }

    private func finishAfterDrain() {
        closing = true
        channel.pauseReading()
        flush()
        guard !closed else { return }
        DispatchQueue.main.asyncAfter(deadline: .now() + drainTimeout) { [weak self] in
            MainActor.assumeIsolated { self?.close() }
        }
    }

    private func readable() {
        guard !closed else { return }
        var buffer = [UInt8](repeating: 0, count: 16 * 1024)
        while !closed {
            let count: Int?
            do {
                count = try buffer.withUnsafeMutableBytes { raw throws(SystemError) in try descriptor.read(into: raw) }
            } catch {
                logger.debug("control client \(number): \(error)")
                close()
                return
            }
            guard let count else { return }
            if count == 0 {
                // The client closed its end; finish writing what it asked for.
                if outbound.isEmpty { close() } else { finishAfterDrain() }
                return
            }
            guard let complete = lines.append(buffer[0..<count]) else {
                let error = ControlError(.badRequest, "request line longer than \(lines.maxLineBytes) bytes")
                if let line = try? JSONLines.encode(ControlResponse<EmptyResult>(id: nil, error: error)) {
                    finish(finalLine: line)
                } else {
                    close()
                }
                return
            }
            for line in complete where !closing { callbacks.line(self, line) }
            if closing { return }
        }
    }

    private func flush() {
        guard !closed else { return }
        let drained: Bool
        do {
            drained = try outbound.flush { raw in try descriptor.send(raw) }
        } catch {
            logger.debug("control client \(number): \(error)")
            close()
            return
        }
        channel.armWrite(!drained)
        if drained && closing { close() }
    }
}
