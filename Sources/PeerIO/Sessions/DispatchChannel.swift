import Dispatch

/// Owns a non-blocking descriptor and the two Dispatch sources that watch it
/// on the main queue: the one place that knows Dispatch's rules for them.
///
/// Dispatch's contracts: a write source fires continuously while the socket
/// is writable, so it is armed only while output waits; a suspended source
/// never runs its cancel handler, so every source is resumed before it is
/// cancelled; and the descriptor may be closed only after every source on it
/// has been cancelled. The channel keeps itself alive from ``close(then:)``
/// until that moment, whoever else lets go of it.
@MainActor
public final class DispatchChannel {
    /// The descriptor; closed by the channel, never by its user.
    public let descriptor: FileDescriptor
    private var readSource: (any DispatchSourceRead)?
    private var writeSource: (any DispatchSourceWrite)?
    private var writeArmed = false
    private var readPaused = false
    private var cancelsPending = 0
    private var onClosed: (@MainActor () -> Void)?
    private var selfUntilClosed: DispatchChannel?

    /// Whether ``close(then:)`` was called.
    public private(set) var isClosing = false

    /// Starts watching `descriptor` for reading; writing waits for ``armWrite(_:)``.
    public init(descriptor: FileDescriptor, onReadable: @escaping @MainActor () -> Void, onWritable: @escaping @MainActor () -> Void) {
        self.descriptor = descriptor
        let read = DispatchSource.makeReadSource(fileDescriptor: descriptor.rawValue, queue: .main)
        read.setEventHandler { MainActor.assumeIsolated { onReadable() } }
        let write = DispatchSource.makeWriteSource(fileDescriptor: descriptor.rawValue, queue: .main)
        write.setEventHandler { MainActor.assumeIsolated { onWritable() } }
        for source in [read as any DispatchSourceProtocol, write] {
            source.setCancelHandler { [weak self] in MainActor.assumeIsolated { self?.sourceCancelled() } }
        }
        readSource = read
        writeSource = write
        cancelsPending = 2
        read.resume()
    }

    /// Watches for writability (`true`) or stops (`false`).
    public func armWrite(_ armed: Bool) {
        guard !isClosing, armed != writeArmed, let writeSource else { return }
        if armed { writeSource.resume() } else { writeSource.suspend() }
        writeArmed = armed
    }

    /// Stops reading until ``resumeReading()`` (or close).
    public func pauseReading() {
        guard !isClosing, !readPaused else { return }
        readSource?.suspend()
        readPaused = true
    }

    /// Reads again after ``pauseReading()``.
    public func resumeReading() {
        guard !isClosing, readPaused else { return }
        readSource?.resume()
        readPaused = false
    }

    /// Cancels both sources, closes the descriptor once Dispatch has
    /// cancelled them, then calls `then`. Idempotent.
    public func close(then: @escaping @MainActor () -> Void = {}) {
        guard !isClosing else { return }
        isClosing = true
        onClosed = then
        selfUntilClosed = self
        if let writeSource {
            if !writeArmed { writeSource.resume() }
            writeSource.cancel()
        }
        if let readSource {
            if readPaused { readSource.resume() }
            readSource.cancel()
        }
    }

    /// A channel let go of without ``close(then:)`` (a bug elsewhere, or
    /// an owner torn down early) must not take the daemon with it:
    /// Dispatch traps when a suspended source is released, so each source
    /// is resumed and cancelled here, and the descriptor closed once both
    /// are, as ``close(then:)`` would.
    isolated deinit {
        guard !isClosing, let readSource, let writeSource else { return }
        let descriptor = descriptor
        let left = PendingCancels(count: 2)
        for source in [readSource as any DispatchSourceProtocol, writeSource] {
            source.setCancelHandler {
                MainActor.assumeIsolated { if left.done() { descriptor.close() } }
            }
        }
        if !writeArmed { writeSource.resume() }
        if readPaused { readSource.resume() }
        writeSource.cancel()
        readSource.cancel()
    }

    private func sourceCancelled() {
        cancelsPending -= 1
        guard cancelsPending == 0 else { return }
        descriptor.close()
        readSource = nil
        writeSource = nil
        let callback = onClosed
        onClosed = nil
        selfUntilClosed = nil
        callback?()
    }
}

/// Counts the cancel handlers still to run for a channel released
/// without ``DispatchChannel/close(then:)``.
@MainActor
private final class PendingCancels {
    private var count: Int

    init(count: Int) { self.count = count }

    /// One ran; true when it was the last.
    func done() -> Bool {
        count -= 1
        return count == 0
    }
}
