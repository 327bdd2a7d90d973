import Glibc
import PeerProtocol
import PeerSystem

/// A blocking control-protocol client: `peerctl`'s, and under
/// ``PeerClient`` every app's (one client in the repository).
package final class ControlClient {
    private let descriptor: FileDescriptor
    /// The socket's path (for messages).
    package let path: String
    private var lines = LineBuffer(maxLineBytes: ControlProtocol.maxResponseLineBytes)
    /// Whole lines read and not yet taken: those from `readyStart` on.
    private var ready: [[UInt8]] = []
    /// The first line of `ready` not yet taken (taking from the front of an
    /// array one at a time would move the rest each time).
    private var readyStart = 0
    private var events: [(event: ControlEvent, line: [UInt8])] = []
    private var nextID: Int64 = 1
    /// How long ``call(_:params:as:)`` waits for the answer to a request.
    package var responseTimeout: Duration = .seconds(30)

    /// Takes a descriptor connected already (a socketpair's end, in tests);
    /// `path` only names it in messages.
    package init(adopting descriptor: FileDescriptor, path: String) {
        self.descriptor = descriptor
        self.path = path
    }

    /// Connects to the daemon's socket at `path`.
    package init(path: String) throws(ControlClientError) {
        self.path = path
        let fd: Int32
        do {
            fd = try Syscall.call("socket", "AF_UNIX") { socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0) }
        } catch { throw .unreachable(path: path, error) }
        do {
            let address = try SocketAddress.unix(path)
            try SocketAddress.withSockaddr(address) { pointer, length throws(SystemError) in
                try Syscall.call("connect", path) { connect(fd, pointer, length) }
            }
        } catch {
            Glibc.close(fd)
            throw .unreachable(path: path, error)
        }
        descriptor = FileDescriptor(rawValue: fd)
    }

    deinit { descriptor.close() }

    /// Sends a request and returns its result, typed by the call
    /// (``ControlCall``: `.status` gives a ``DaemonStatus``), or throws the
    /// daemon's typed error.
    /// `descriptors` go with the request line (`SCM_RIGHTS`; at most
    /// ``DescriptorPassing/maxDescriptors``); they stay open here.
    /// `sent` runs once the request is sent, before the answer is awaited.
    /// `onEvent`, when given, gets each event that arrives while the answer
    /// is awaited (a `channel`'s `channelOpened`), in place of keeping it
    /// for ``nextEvent(deadline:)``.
    package func call<R>(_ call: ControlCall<R>, params: ControlParams? = nil, descriptors: [FileDescriptor] = [],
                        sent: () -> Void = {}, onEvent: ((ControlEvent) -> Void)? = nil) throws(ControlClientError) -> R {
        let id = RequestID.number(nextID)
        nextID += 1
        try send(ControlRequest(id: id, method: call.method, params: params), descriptors: descriptors)
        sent()
        let deadline = ContinuousClock.now + responseTimeout
        while true {
            let line: [UInt8]
            do { line = try readLine(deadline: deadline) } catch {
                if case .timedOut = error { throw .noAnswer(path: path, seconds: Int(responseTimeout.components.seconds)) }
                throw error
            }
            let envelope: ControlEnvelope
            do { envelope = try JSONLines.decode(ControlEnvelope.self, from: line) } catch {
                throw .transport("the daemon sent a line that is not protocol JSON: \(error)")
            }
            if envelope.id == nil, let error = envelope.error, error.code == .overloaded { throw .refused(path: path, error) }
            guard envelope.id == id else {
                // An event that arrived while waiting for the answer goes to
                // onEvent, or is kept for nextEvent().
                if let event = envelope.event {
                    if let onEvent { onEvent(event) } else { events.append((event, line)) }
                }
                continue
            }
            if let error = envelope.error { throw .daemon(error) }
            do {
                guard let result = try JSONLines.decode(ControlResponse<R>.self, from: line).result else {
                    throw ControlClientError.transport("the daemon's response has neither result nor error")
                }
                return result
            } catch let error as ControlClientError {
                throw error
            } catch {
                throw .transport("cannot decode the daemon's response: \(error)")
            }
        }
    }

    /// Reads the next event line of a subscription, blocking. Returns the
    /// event and its raw line.
    package func nextEvent(deadline: ContinuousClock.Instant? = nil) throws(ControlClientError) -> (event: ControlEvent, line: [UInt8]) {
        if !events.isEmpty { return events.removeFirst() }
        while true {
            let line = try readLine(deadline: deadline)
            guard let envelope = try? JSONLines.decode(ControlEnvelope.self, from: line) else {
                throw .transport("the daemon sent a line that is not protocol JSON")
            }
            if let event = envelope.event { return (event, line) }
        }
    }

    /// Whether an event or answer is already read and waiting here: a
    /// printer that flushes its output only when nothing waits writes many
    /// events in one write (`peerctl recv`).
    package var hasReadAhead: Bool { !events.isEmpty || readyStart < ready.count }

    /// The socket, for a client that waits on several descriptors with
    /// `poll` (`peerctl top`); read it only through this client.
    package var pollDescriptor: Int32 { descriptor.rawValue }

    /// The events that can be had without blocking: those already read,
    /// then whatever the socket holds now. Throws when the daemon is gone.
    package func availableEvents() throws(ControlClientError) -> [ControlEvent] {
        var found = events.map(\.event)
        events.removeAll()
        while true {
            do { found.append(try nextEvent(deadline: ContinuousClock.now).event) } catch {
                if case .timedOut = error { return found }
                throw error
            }
        }
    }

    private func send(_ request: ControlRequest, descriptors: [FileDescriptor]) throws(ControlClientError) {
        do {
            let bytes = try JSONLines.encode(request)
            if descriptors.isEmpty {
                try descriptor.sendAll(bytes, context: path)
            } else {
                try DescriptorPassing.send(bytes, descriptors: descriptors, on: descriptor)
            }
        } catch let error as SystemError {
            // A daemon at its client limit writes why, then closes: read
            // that rather than report a broken pipe.
            if let line = try? readLine(deadline: ContinuousClock.now + .seconds(1)),
               let envelope = try? JSONLines.decode(ControlEnvelope.self, from: line), let refusal = envelope.error {
                throw refusal.code == .overloaded && envelope.id == nil ? .refused(path: path, refusal) : .daemon(refusal)
            }
            throw .transport("cannot send to peerd: \(error)")
        } catch {
            throw .transport("cannot encode the request: \(error)")
        }
    }

    private func readLine(deadline: ContinuousClock.Instant? = nil) throws(ControlClientError) -> [UInt8] {
        if readyStart < ready.count { return takeReady() }
        ready.removeAll(keepingCapacity: true)
        readyStart = 0
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        while ready.isEmpty {
            if let deadline {
                var pfd = pollfd(fd: descriptor.rawValue, events: Int16(POLLIN), revents: 0)
                let ready = poll(&pfd, 1, Syscall.pollTimeout(until: deadline))
                if ready == 0 { throw .timedOut }
                if ready < 0 && errno != EINTR { throw .transport("poll: \(String(cString: strerror(errno)))") }
                if ready < 0 { continue }
            }
            let count: Int
            do {
                count = try Syscall.call("read", path) { buffer.withUnsafeMutableBytes { read(descriptor.rawValue, $0.baseAddress, $0.count) } }
            } catch { throw .transport("reading from peerd: \(error)") }
            if count == 0 { throw .transport("peerd closed the connection") }
            guard let complete = lines.append(buffer[0..<count]) else { throw .transport("peerd sent an over-long line") }
            ready += complete
        }
        return takeReady()
    }

    private func takeReady() -> [UInt8] {
        let line = ready[readyStart]
        ready[readyStart] = []
        readyStart += 1
        return line
    }
}
