import FoundationEssentials
import Dispatch
import Glibc
import PeerCore
import PeerProtocol

/// The control layer: accepts clients on the Unix socket, parses request
/// lines, hands well-formed requests to the handler, and fans events out to
/// subscribers. It is the only part of peerd that talks to clients.
@MainActor
package final class ControlServer {
    private let listener: UnixSocketListener
    private let logger: Logger
    private let queueLimit: Int
    private let maxLine: Int
    private var acceptSource: (any DispatchSourceRead)?
    private var connections: [ObjectIdentifier: ControlConnection] = [:]
    /// Bytes of unfinished request lines, per connection, beyond the free
    /// allowance; their sum is bounded by ``requestBytesLimit``.
    private var heldBytes: [ObjectIdentifier: Int] = [:]
    private var heldTotal = 0
    private var nextNumber = 1
    /// Who may connect (see ``ClientAdmission``); set before ``start()``.
    package var admission = ClientAdmission(maxClients: 64)
    /// Root's connections, and members' together; one more gets `overloaded`.
    package var maxClients: Int {
        get { admission.maxClients }
        set { admission = ClientAdmission(maxClients: newValue) }
    }
    /// Unfinished request bytes every connection may hold without drawing
    /// on the shared limit: any ordinary request fits.
    package static let freeRequestBytes = 64 * 1024
    /// Unfinished request bytes all clients together may hold beyond their
    /// free allowance. A line that would pass it gets `overloaded`.
    package let requestBytesLimit: Int
    /// The name of the group whose members may drive the daemon (`--group`), for messages.
    package var groupName = "peerd"
    /// Who may do what; set before ``start()``.
    package var policy = AccessPolicy(groupID: nil, publicRead: false)
    /// The daemon's clock; set before ``start()``.
    package var clock = DaemonClock.system
    /// Answers requests and hears of clients (given to ``start(handler:)``;
    /// held weakly: the daemon owns it).
    private weak var handler: (any ControlRequestHandler)?

    /// Binds the socket at `path` (mode 0660). `queueLimit` bounds each
    /// client's unsent bytes.
    /// `requestBytesLimit` (default: twice `maxLine`, at least 32 MiB)
    /// bounds the unfinished request bytes of all clients together.
    package init(path: String, queueLimit: Int, maxLine: Int = ControlProtocol.maxRequestLineBytes, logger: Logger,
                activated: FileDescriptor? = nil, mode: mode_t = 0o660, group: gid_t? = nil, requestBytesLimit: Int? = nil) throws(SystemError) {
        if let activated {
            listener = UnixSocketListener(activated: activated, path: path)
        } else {
            listener = try UnixSocketListener(path: path, mode: mode, group: group)
        }
        self.logger = logger
        self.queueLimit = queueLimit
        self.maxLine = maxLine
        self.requestBytesLimit = requestBytesLimit ?? max(2 * maxLine, 32 << 20)
    }

    /// The socket path.
    package var path: String { listener.path }

    /// Connected clients.
    package var clientCount: Int { connections.count }

    /// Clients subscribed to events.
    package var subscriberCount: Int { connections.values.filter(\.isSubscriber).count }

    /// Clients subscribed to events that `audience` picks (an app's).
    package func subscriberCount(where audience: (ControlConnection) -> Bool) -> Int {
        connections.values.filter { $0.isSubscriber && audience($0) }.count
    }

    /// Starts accepting; `handler` answers the requests.
    package func start(handler: any ControlRequestHandler) {
        self.handler = handler
        let source = DispatchSource.makeReadSource(fileDescriptor: listener.descriptor.rawValue, queue: .main)
        source.setEventHandler { [weak self] in MainActor.assumeIsolated { self?.acceptClients() } }
        acceptSource = source
        source.resume()
    }

    /// Sends an event to every subscriber; one whose queue is full is dropped
    /// with a final `error` event, and logged once. (`message` events go
    /// only to the clients taking messages: see ``send(_:to:)``.)
    package func broadcast(_ event: ControlEvent) {
        broadcast(event) { _ in true }
    }

    /// Sends an event to the subscribers `audience` picks (an app's events
    /// go to its clients alone).
    package func broadcast(_ event: ControlEvent, to audience: (ControlConnection) -> Bool) {
        // Encoded once, and only when someone hears it: an event nobody
        // subscribes to (a `delivered` per acknowledgement) costs nothing.
        var line: [UInt8]?
        for connection in connections.values where connection.isSubscriber && !connection.isClosing && audience(connection) && connection.admits(event) {
            if line == nil { line = try? JSONLines.encode(EventLine(event)) }
            guard let line else { return }
            _ = send(line, of: event, to: connection)
        }
    }

    /// Sends one event to one subscriber, a `message` event with room for
    /// one largest message. Returns false when the subscriber was too far
    /// behind: it is dropped with a final `error` event.
    @discardableResult
    package func send(_ event: ControlEvent, to connection: ControlConnection) -> Bool {
        guard let line = try? JSONLines.encode(EventLine(event)) else { return false }
        return send(line, of: event, to: connection)
    }

    private func send(_ line: [UInt8], of event: ControlEvent, to connection: ControlConnection) -> Bool {
        guard !connection.isClosing else { return false }
        // A client taking messages may hold one large message past the
        // limit; the small events that follow it may queue behind it.
        if event.type == .message { connection.carriesMessages = true }
        if connection.send(line, extra: connection.carriesMessages ? messageAllowance : 0) { return true }
        logger.warning("control client \(connection.number) is not reading its events; dropping it")
        let error = ControlError(.overloaded, "subscriber too slow: more than \(queueLimit) bytes of events unread; resubscribe with since=\(event.seq - 1)")
        let final = ControlEvent(seq: 0, type: .error, time: event.time, error: error)
        if let finalLine = try? JSONLines.encode(EventLine(final)) { connection.drop(finalLine: finalLine) }
        return false
    }

    /// The clock: unfinished lines and idle clients outside the group.
    package func tick(now: Date) {
        for connection in Array(connections.values) { connection.tick(now: now) }
    }

    /// The most bytes queued for any one subscriber: how far the slowest
    /// is behind, for holding back the flow toward subscribers.
    package var subscriberBacklog: Int {
        // Asked once a delivered message: a plain loop, no arrays made.
        var most = 0
        for connection in connections.values where connection.isSubscriber && !connection.isClosing {
            most = max(most, connection.queuedBytes)
        }
        return most
    }

    /// How far past its queue limit a subscriber may be taken by one
    /// `message` event (set by the daemon from `--max-message`): the flow of
    /// messages is held back at half the limit, so one message that crosses
    /// it must still fit. Other events get no such room.
    package var messageAllowance = 0

    /// Drops every subscriber more than `bytes` behind, with a final error:
    /// it did not catch up while the flow toward it was held back.
    package func dropSubscribers(behindBy bytes: Int, now: Date) {
        for connection in connections.values where connection.isSubscriber && !connection.isClosing && connection.queuedBytes > bytes {
            logger.warning("control client \(connection.number) did not catch up with its events within the hold; dropping it")
            let error = ControlError(.overloaded, "subscriber too slow: \(connection.queuedBytes) bytes of events unread while the flow was held back; resubscribe")
            let final = ControlEvent(seq: 0, type: .error, time: now, error: error)
            if let line = try? JSONLines.encode(EventLine(final)) { connection.drop(finalLine: line) }
        }
    }

    /// Unfinished request bytes held beyond the free allowances, in all.
    package var heldRequestBytes: Int { heldTotal }

    /// Tells subscribers the daemon stops, closes every client, removes the socket.
    package func stop(time: Date) {
        acceptSource?.cancel()
        let final = ControlEvent(seq: 0, type: .error, time: time, error: ControlError(.shuttingDown, "peerd is stopping"))
        let line = try? JSONLines.encode(EventLine(final))
        for connection in connections.values {
            if connection.isSubscriber, let line { connection.send(line) }
            connection.close()
        }
        listener.close()
    }

    private func acceptClients() {
        while true {
            let accepted: FileDescriptor?
            do {
                accepted = try listener.accept()
            } catch {
                // EMFILE and friends: log and leave the rest for the next wakeup.
                logger.warning("control socket: \(error)")
                return
            }
            guard let descriptor = accepted else { return }
            let credentials: ClientCredentials?
            do {
                credentials = try PeerCredentials.of(descriptor)
            } catch {
                logger.warning("control client: cannot read its credentials: \(error)")
                credentials = nil
            }
            let client = ClientAdmission.Client(uid: credentials?.uid, privileged: credentials.map(policy.isPrivileged) ?? false)
            if let refusal = admission.admit(client, connected: connections.values.map(\.client)) {
                refuse(descriptor, refusal)
                continue
            }
            let number = nextNumber
            nextNumber += 1
            let connection = ControlConnection(
                descriptor: descriptor, number: number, credentials: credentials, client: client, now: clock.now(), queueLimit: queueLimit,
                maxLine: client.privileged ? maxLine : ControlProtocol.maxOthersRequestLineBytes, logger: logger,
                callbacks: .init(
                    line: { [weak self] connection, line in self?.received(line, on: connection) },
                    closed: { [weak self] connection in self?.forget(connection) },
                    holding: { [weak self] connection, bytes in self?.hold(bytes, for: connection) ?? false },
                    drained: { [weak self] _ in self?.handler?.subscriberDrained() },
                    written: { [weak self] connection in self?.handler?.clientWrote(connection) }),
                clock: clock)
            connections[ObjectIdentifier(connection)] = connection
        }
    }

    private func forget(_ connection: ControlConnection) {
        _ = hold(0, for: connection)
        connections[ObjectIdentifier(connection)] = nil
        handler?.clientClosed(connection)
    }

    /// Records that `connection`'s unfinished line holds `bytes`; false if
    /// that would pass the shared limit (nothing is recorded then).
    private func hold(_ bytes: Int, for connection: ControlConnection) -> Bool {
        let key = ObjectIdentifier(connection)
        let excess = max(0, bytes - Self.freeRequestBytes)
        let before = heldBytes[key] ?? 0
        let total = heldTotal - before + excess
        guard excess <= before || total <= requestBytesLimit else {
            logger.warning("control client \(connection.number): unfinished requests would hold \(total) bytes, over the \(requestBytesLimit)-byte limit; refusing its line")
            return false
        }
        heldTotal = total
        heldBytes[key] = excess == 0 ? nil : excess
        return true
    }

    private var refusedClients = RefusalCounter()

    /// One best-effort error line, then close: the daemon never waits on it.
    /// What the client already sent is read and discarded first, so the
    /// close is an orderly end of stream and the client can read the
    /// refusal (a close with unread input would reset its connection).
    private func refuse(_ descriptor: FileDescriptor, _ refusal: ClientAdmission.Refusal) {
        if refusedClients.record() {
            logger.warning("control client refused: \(refusal) (\(refusedClients.count) refused so far)")
        }
        let error = ControlError(.overloaded, refusal.description)
        if let line = try? JSONLines.encode(ControlResponse<EmptyResult>(id: nil, error: error)) {
            _ = line.withUnsafeBytes { raw in try? descriptor.send(raw) }
        }
        var scratch = [UInt8](repeating: 0, count: 4096)
        for _ in 0..<16 {
            let count: Int? = scratch.withUnsafeMutableBytes { raw in (try? descriptor.read(into: raw)) ?? nil }
            guard let count, count > 0 else { break }
        }
        shutdown(descriptor.rawValue, Int32(SHUT_WR))
        descriptor.close()
    }

    private func received(_ line: [UInt8], on connection: ControlConnection) {
        if line.allSatisfy({ $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") }) { return }
        // The common lines are read by hand; the rest, and every broken
        // line, go the full way below, which answers them all the same.
        if let request = ControlRequestReader.read(line) {
            handle(request, on: connection)
            return
        }
        // What the decoder would blur: `v` other than the integer 1, and a
        // parameter of the wrong JSON type, named.
        if let error = ControlRequestCheck.check(line) {
            reply(connection, id: (try? JSONLines.decode(IDOnly.self, from: line))?.id, error: error)
            return
        }
        let request: ControlRequest
        do {
            request = try JSONLines.decode(ControlRequest.self, from: line)
        } catch {
            // Salvage the id, if any, so the client can match the error.
            let id = (try? JSONLines.decode(IDOnly.self, from: line))?.id
            reply(connection, id: id, error: ControlError(.badRequest, "not a valid request: expected {\"v\":1,\"id\":…,\"method\":…}"))
            return
        }
        handle(request, on: connection)
    }

    /// Answers a decoded request: version, method, permission, handler.
    private func handle(_ request: ControlRequest, on connection: ControlConnection) {
        guard request.v == ControlProtocol.version else {
            reply(connection, id: request.id, error: ControlError(.unsupportedVersion, "protocol version \(request.v) is not supported; this daemon speaks \(ControlProtocol.version)"))
            return
        }
        guard let method = ControlMethod(rawValue: request.method) else {
            let known = ControlMethod.allCases.map(\.rawValue).joined(separator: ", ")
            reply(connection, id: request.id, error: ControlError(.unknownMethod, "unknown method '\(request.method)'; known: \(known)"))
            return
        }
        guard let client = connection.credentials, policy.allows(method, for: client) else {
            let who = connection.credentials.map { "uid \($0.uid)" } ?? "an unknown client"
            let open = policy.publicRead ? " (only status and peers are open to everyone)" : ""
            reply(connection, id: request.id, error: ControlError(.permissionDenied, "\(who) may not call '\(method.rawValue)': only root and members of the \(groupName) group may\(open)"))
            return
        }
        guard let handler else {
            reply(connection, id: request.id, error: ControlError(.internal, "daemon not ready"))
            return
        }
        respond(handler.handle(method, params: request.params ?? ControlParams(), client: connection), id: request.id, to: connection)
    }

    /// Encodes a handler's reply and sends it: the one place answers are
    /// written. A client that sends requests but does not read the answers
    /// fills its queue; it is dropped with a last error, not buffered for.
    package func respond(_ reply: ControlReply, id: RequestID, to connection: ControlConnection) {
        switch reply {
        case .result(let value):
            deliver(encoded(value, id: id), id: id, to: connection)
        case .error(let error):
            self.reply(connection, id: id, error: error)
        case .subscribed(let result, let replay, let then):
            // Reply and replay happen in one main-actor turn, so no live
            // event can slip between them or be sent twice.
            deliver(encoded(result, id: id), id: id, to: connection)
            connection.isSubscriber = true
            for event in replay where connection.admits(event) {
                guard let line = try? JSONLines.encode(EventLine(event)), connection.send(line) else { break }
            }
            then?(connection)
        case .resultThen(let value, let then):
            deliver(encoded(value, id: id), id: id, to: connection)
            then(connection)
        case .later(let start):
            connection.replyDeferred()
            var answered = false
            start { [weak self, weak connection] reply in
                guard !answered, let self, let connection else { return }
                answered = true
                guard !connection.isClosing else { return }
                self.respond(reply, id: id, to: connection)
                connection.replyCompleted()
            }
        }
    }

    private func encoded<T: Codable & Sendable>(_ value: T, id: RequestID) -> [UInt8] {
        do {
            return try JSONLines.encode(ControlResponse(id: id, result: value))
        } catch {
            return (try? JSONLines.encode(ControlResponse<EmptyResult>(id: id, error: ControlError(.internal, "cannot encode the result: \(error)")))) ?? []
        }
    }

    private func deliver(_ line: [UInt8], id: RequestID?, to connection: ControlConnection) {
        // A connection already on its way out is not overloaded: say nothing.
        guard !connection.send(line), !connection.isClosing else { return }
        logger.warning("control client \(connection.number) is not reading its responses; dropping it")
        let error = ControlError(.overloaded, "too many unread responses; read them before sending more requests")
        if let final = try? JSONLines.encode(ControlResponse<EmptyResult>(id: id, error: error)) { connection.drop(finalLine: final) }
    }

    private func reply(_ connection: ControlConnection, id: RequestID?, error: ControlError) {
        if let line = try? JSONLines.encode(ControlResponse<EmptyResult>(id: id, error: error)) { deliver(line, id: id, to: connection) }
    }

    private struct IDOnly: Decodable {
        var id: RequestID?
    }
}
