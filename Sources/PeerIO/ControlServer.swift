import FoundationEssentials
import Dispatch
import Glibc
import PeerCore

/// The control layer: accepts clients on the Unix socket, parses request
/// lines, hands well-formed requests to the handler, and fans events out to
/// subscribers. It is the only part of peerd that talks to clients.
@MainActor
public final class ControlServer {
    private let listener: UnixSocketListener
    private let logger: Logger
    private let queueLimit: Int
    private let maxLine: Int
    private var acceptSource: (any DispatchSourceRead)?
    private var connections: [ObjectIdentifier: ControlConnection] = [:]
    private var nextNumber = 1
    /// The most clients at once; one more gets `overloaded` and is closed.
    public var maxClients = 64
    /// Who may do what; set before ``start()``.
    public var policy = AccessPolicy(groupID: nil, publicRead: false)
    /// Answers requests; set before ``start()``.
    public weak var handler: (any ControlRequestHandler)?

    /// Binds the socket at `path` (mode 0660). `queueLimit` bounds each
    /// client's unsent bytes.
    public init(path: String, queueLimit: Int, maxLine: Int = ControlProtocol.maxRequestLineBytes, logger: Logger,
                activated: FileDescriptor? = nil, mode: mode_t = 0o660, group: gid_t? = nil) throws(SystemError) {
        if let activated {
            listener = UnixSocketListener(activated: activated, path: path)
        } else {
            listener = try UnixSocketListener(path: path, mode: mode, group: group)
        }
        self.logger = logger
        self.queueLimit = queueLimit
        self.maxLine = maxLine
    }

    /// The socket path.
    public var path: String { listener.path }

    /// Connected clients.
    public var clientCount: Int { connections.count }

    /// Clients subscribed to events.
    public var subscriberCount: Int { connections.values.filter(\.isSubscriber).count }

    /// Starts accepting.
    public func start() {
        let source = DispatchSource.makeReadSource(fileDescriptor: listener.descriptor.rawValue, queue: .main)
        source.setEventHandler { [weak self] in MainActor.assumeIsolated { self?.acceptClients() } }
        acceptSource = source
        source.resume()
    }

    /// Sends an event to every subscriber; one whose queue is full is dropped
    /// with a final `error` event.
    public func broadcast(_ event: ControlEvent) {
        guard let line = try? JSONLines.encode(EventLine(event)) else { return }
        for connection in connections.values where connection.isSubscriber {
            if !connection.send(line) {
                logger.warning("control client \(connection.number) is not reading its events; dropping it")
                let error = ControlError(.overloaded, "subscriber too slow: more than \(queueLimit) bytes of events unread; resubscribe with since=\(event.seq - 1)")
                let final = ControlEvent(seq: 0, type: .error, time: event.time, error: error)
                if let finalLine = try? JSONLines.encode(EventLine(final)) { connection.drop(finalLine: finalLine) }
            }
        }
    }

    /// Tells subscribers the daemon stops, closes every client, removes the socket.
    public func stop(time: Date) {
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
            guard connections.count < maxClients else {
                refuseOverCap(descriptor)
                continue
            }
            let number = nextNumber
            nextNumber += 1
            let connection = ControlConnection(
                descriptor: descriptor, number: number, queueLimit: queueLimit, maxLine: maxLine, logger: logger,
                callbacks: .init(
                    line: { [weak self] connection, line in self?.received(line, on: connection) },
                    closed: { [weak self] connection in self?.connections[ObjectIdentifier(connection)] = nil }))
            do {
                connection.credentials = try PeerCredentials.of(descriptor)
            } catch {
                logger.warning("control client \(number): cannot read its credentials: \(error)")
            }
            connections[ObjectIdentifier(connection)] = connection
        }
    }

    private var refusedClients = RefusalCounter()

    /// One best-effort error line, then close: the daemon never waits on it.
    private func refuseOverCap(_ descriptor: FileDescriptor) {
        if refusedClients.record() {
            logger.warning("control client limit (\(maxClients)) reached; refusing a client (\(refusedClients.count) refused so far)")
        }
        let error = ControlError(.overloaded, "too many control clients (\(maxClients)); try again later")
        if let line = try? JSONLines.encode(ControlResponse<EmptyResult>(id: nil, error: error)) {
            _ = line.withUnsafeBytes { raw in try? descriptor.send(raw) }
        }
        descriptor.close()
    }

    private func received(_ line: [UInt8], on connection: ControlConnection) {
        if line.allSatisfy({ $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") }) { return }
        let request: ControlRequest
        do {
            request = try JSONLines.decode(ControlRequest.self, from: line)
        } catch {
            // Salvage the id, if any, so the client can match the error.
            let id = (try? JSONLines.decode(IDOnly.self, from: line))?.id
            reply(connection, id: id, error: ControlError(.badRequest, "not a valid request: expected {\"v\":1,\"id\":…,\"method\":…}"))
            return
        }
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
            reply(connection, id: request.id, error: ControlError(.permissionDenied, "\(who) may not call '\(method.rawValue)': only root and members of the peerd group may\(open)"))
            return
        }
        guard let handler else {
            reply(connection, id: request.id, error: ControlError(.internal, "daemon not ready"))
            return
        }
        handler.handle(method, params: request.params ?? ControlParams(), id: request.id, connection: connection)
    }

    private func reply(_ connection: ControlConnection, id: RequestID?, error: ControlError) {
        if let line = try? JSONLines.encode(ControlResponse<EmptyResult>(id: id, error: error)) { connection.send(line) }
    }

    private struct IDOnly: Decodable {
        var id: RequestID?
    }
}
