import Dispatch
import Glibc
import PeerSystem

/// Owns a non-blocking descriptor and watches it through the process's
/// ``Poller``, calling back on the main actor: the one place that knows
/// the rules of watching.
///
/// Reading is watched from the start, until ``pauseReading()``; writing
/// only while ``armWrite(_:)`` says output waits (a socket is writable
/// nearly always). Registrations are one-shot and level-triggered: after
/// a report the channel is re-armed with what it wants then, so a handler
/// that leaves bytes unread is called again, and a paused channel hears
/// nothing. A handler may be called when there is nothing to do (a report
/// that crossed a change of interest); every handler tries its I/O and
/// takes `EAGAIN` as "wait". ``close(then:)`` stops the watching and closes
/// the descriptor at once; a report still on its way finds the channel
/// gone by its token.
@MainActor
package final class PollChannel {
    /// The descriptor; closed by the channel, never by its user.
    package let descriptor: FileDescriptor
    private let onReadable: @MainActor () -> Void
    private let onWritable: @MainActor () -> Void
    private let poller: Poller
    private let token: UInt64
    private var reading = true
    private var writing = false
    /// What the kernel is armed for now; nil once it reported (one-shot) or before.
    private var armed: Epoll.Events?
    /// Inside ``reported(_:)``: the interest is applied once its handlers return.
    private var inReport = false
    /// epoll refused the descriptor (a regular file or /dev/null: always ready):
    /// reports are made up on the main queue while anything is wanted.
    private var alwaysReady = false
    private var readyScheduled = false
    /// A write is queued for the end of the poller's batch.
    private var writeDue = false

    /// Whether ``close(then:)`` was called.
    package private(set) var isClosing = false

    /// Starts watching `descriptor` for reading; writing waits for ``armWrite(_:)``.
    package init(descriptor: FileDescriptor, onReadable: @escaping @MainActor () -> Void, onWritable: @escaping @MainActor () -> Void) {
        self.descriptor = descriptor
        self.onReadable = onReadable
        self.onWritable = onWritable
        poller = Poller.main
        token = poller.table.newToken()
        poller.table.bind(token, to: self)
        do {
            try poller.epoll.add(descriptor, for: Self.interest(reading: true, writing: false), token: token)
            armed = Self.interest(reading: true, writing: false)
        } catch {
            // EPERM: epoll does not watch this kind of file; it is always
            // ready, and its I/O says what is really there.
            alwaysReady = true
            scheduleReady()
        }
    }

    /// Watches for writability (`true`) or stops (`false`).
    package func armWrite(_ armed: Bool) {
        guard !isClosing, armed != writing else { return }
        writing = armed
        apply()
    }

    /// Stops reading until ``resumeReading()`` (or close).
    package func pauseReading() {
        guard !isClosing, reading else { return }
        reading = false
        apply()
    }

    /// Reads again after ``pauseReading()``.
    package func resumeReading() {
        guard !isClosing, !reading else { return }
        reading = true
        apply()
    }

    /// Stops watching and closes the descriptor now; `then` runs on the
    /// main queue after the caller's turn. Idempotent.
    package func close(then: @escaping @MainActor () -> Void = {}) {
        guard !isClosing else { return }
        isClosing = true
        stopWatching()
        DispatchQueue.main.async { MainActor.assumeIsolated { then() } }
    }

    /// A channel let go of without ``close(then:)`` (a bug elsewhere, or an
    /// owner torn down early) still closes its descriptor.
    isolated deinit {
        guard !isClosing else { return }
        stopWatching()
    }

    private func stopWatching() {
        if !alwaysReady { try? poller.epoll.remove(descriptor) }
        poller.table.remove(token)
        descriptor.close()
    }

    private static func interest(reading: Bool, writing: Bool) -> Epoll.Events {
        var events: Epoll.Events = []
        if reading { events.formUnion([.readable, .peerClosed]) }
        if writing { events.insert(.writable) }
        return events
    }

    /// Arms the kernel for what is wanted now. Wanting nothing leaves an
    /// earlier arming in place: its report, if it comes, calls nothing and
    /// re-arms nothing (cheaper than a system call to disarm).
    private func apply() {
        guard !inReport, !isClosing else { return }
        let wanted = Self.interest(reading: reading, writing: writing)
        guard !wanted.isEmpty else { return }
        if alwaysReady { return scheduleReady() }
        guard wanted != armed else { return }
        do {
            try poller.epoll.rearm(descriptor, for: wanted, token: token)
            armed = wanted
        } catch {
            // Only a descriptor closed behind the channel's back gets here:
            // the handlers' next I/O meets the same error and ends it.
            alwaysReady = true
            scheduleReady()
        }
    }

    /// Output queued while the poller's reports are handled goes out in one
    /// write at the end of their batch, not one write a line: a batch of
    /// 500 requests answered, or 500 frames turned into events, costs one
    /// `send` (issue 25, point 4). True: ``onWritable`` is called then,
    /// once however often this is asked. False: no batch is being handled
    /// (a timer, an Avahi event); the caller writes now.
    package func writeAtBatchEnd() -> Bool {
        guard !isClosing else { return false }
        if writeDue { return true }
        guard poller.table.writeAtEnd(self) else { return false }
        writeDue = true
        return true
    }

    /// The batch ended: the write asked for by ``writeAtBatchEnd()``.
    func batchEnded() {
        writeDue = false
        guard !isClosing else { return }
        onWritable()
    }

    /// The poller's report (one-shot: the kernel is disarmed now).
    func reported(_ events: Epoll.Events) {
        guard !isClosing else { return }
        armed = nil
        inReport = true
        if reading, !events.isDisjoint(with: .readReady) { onReadable() }
        if !isClosing, writing, !events.isDisjoint(with: .writeReady) { onWritable() }
        inReport = false
        apply()
    }

    private func scheduleReady() {
        guard !readyScheduled else { return }
        readyScheduled = true
        DispatchQueue.main.async { [weak self] in
            MainActor.assumeIsolated {
                guard let self else { return }
                self.readyScheduled = false
                self.reported([.readable, .writable])
            }
        }
    }
}
