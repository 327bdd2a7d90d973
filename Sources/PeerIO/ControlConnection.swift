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
    private let descriptor: FileDescriptor
    private let callbacks: Callbacks
    private let logger: Logger
    private var lines: LineBuffer
    private var outbound: OutboundQueue
    private var readSource: (any DispatchSourceRead)?
    private var writeSource: (any DispatchSourceWrite)?
    private var writeSourceResumed = false
    private var readSuspended = false
    private var closing = false
    private var closed = false
    private var pendingCancels = 0
    private let drainTimeout: Double = 5

    /// Wraps an accepted, non-blocking descriptor and starts reading.
    public init(descriptor: FileDescriptor, number: Int, queueLimit: Int, maxLine: Int, logger: Logger, callbacks: Callbacks) {
        self.descriptor = descriptor
        self.number = number
        self.callbacks = callbacks
        self.logger = logger
        lines = LineBuffer(maxLineBytes: maxLine)
        outbound = OutboundQueue(limit: queueLimit)
        let read = DispatchSource.makeReadSource(fileDescriptor: descriptor.rawValue, queue: .main)
        read.setEventHandler { [weak self] in MainActor.assumeIsolated { self?.readable() } }
        read.setCancelHandler { [weak self] in MainActor.assumeIsolated { self?.sourceCancelled() } }
        let write = DispatchSource.makeWriteSource(fileDescriptor: descriptor.rawValue, queue: .main)
        write.setEventHandler { [weak self] in MainActor.assumeIsolated { self?.writable() } }
        write.setCancelHandler { [weak self] in MainActor.assumeIsolated { self?.sourceCancelled() } }
        readSource = read
        writeSource = write
        pendingCancels = 2
        read.resume()
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
        if let writeSource {
            if !writeSourceResumed { writeSource.resume() }
            writeSource.cancel()
        }
        // A suspended source never runs its cancel handler: resume first.
        if let readSource {
            if readSuspended { readSource.resume() }
            readSource.cancel()
        }
    }

    private func finishAfterDrain() {
        closing = true
        if !readSuspended {
            readSource?.suspend()
            readSuspended = true
        }
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

    private func writable() {
        flush()
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
        if drained {
            if writeSourceResumed {
                writeSource?.suspend()
                writeSourceResumed = false
            }
            if closing { close() }
        } else if !writeSourceResumed {
            writeSource?.resume()
            writeSourceResumed = true
        }
    }

    private func sourceCancelled() {
        pendingCancels -= 1
        // Dispatch's contract: the descriptor may be closed only after every
        // source on it has been cancelled.
        guard pendingCancels == 0 else { return }
        descriptor.close()
        readSource = nil
        writeSource = nil
        callbacks.closed(self)
    }
}
