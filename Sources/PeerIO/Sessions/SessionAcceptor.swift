import Dispatch
import FoundationEssentials
import PeerCore
import PeerProtocol

/// The session port's accept loop: each new connection passes the
/// per-address connection rate and the handshake slots
/// (``SessionAdmission/admitConnection(from:known:pending:)``) before it
/// becomes a session; a refused one is closed at once, counted, and logged
/// now and then.
@MainActor
package final class SessionAcceptor {
    private let listener: TCPListener
    private let admission: SessionAdmission
    private let rate: Int
    private var limiter: RateLimiter<String>
    private var refusedByRate = RefusalCounter()
    private var refusedHandshakes = RefusalCounter()
    private var source: (any DispatchSourceRead)?
    private let logger: Logger
    private let clock: DaemonClock
    /// Addresses known peers use (never the ones to give way).
    private let knownAddresses: @MainActor () -> Set<String>
    /// Accepted sessions still in their handshake.
    private let pending: @MainActor () -> [PeerSession]
    /// An admitted connection, to become a session.
    private let accepted: @MainActor (FileDescriptor) -> Void

    /// An acceptor on `listener`: `rate` new connections a second per
    /// address (bursts of twice that), handshakes as `admission` allows;
    /// `pending` gives the sessions still in their handshake and
    /// `knownAddresses` the addresses of known peers, and `accepted`
    /// makes a session of each admitted connection.
    package init(listener: TCPListener, rate: Int, admission: SessionAdmission, logger: Logger, clock: DaemonClock = .system,
                knownAddresses: @escaping @MainActor () -> Set<String>, pending: @escaping @MainActor () -> [PeerSession],
                accepted: @escaping @MainActor (FileDescriptor) -> Void) {
        self.knownAddresses = knownAddresses
        self.pending = pending
        self.accepted = accepted
        self.clock = clock
        self.listener = listener
        self.rate = rate
        self.admission = admission
        self.logger = logger
        limiter = RateLimiter<String>(perSecond: Double(rate), burst: Double(rate * 2))
    }

    /// Starts accepting on the main queue.
    package func start() {
        let source = DispatchSource.makeReadSource(fileDescriptor: listener.descriptor.rawValue, queue: .main)
        source.setEventHandler { [weak self] in MainActor.assumeIsolated { self?.acceptAll() } }
        self.source = source
        source.resume()
    }

    /// Stops accepting.
    package func stop() {
        source?.cancel()
    }

    private func acceptAll() {
        while true {
            let connection: FileDescriptor
            do {
                guard let accepted = try listener.accept() else { return }
                connection = accepted
            } catch {
                logger.warning("session port: \(error)")
                return
            }
            if admit(connection) { accepted(connection) } else { connection.close() }
        }
    }

    private func admit(_ connection: FileDescriptor) -> Bool {
        // Unauthenticated connections are capped in all and per address, so
        // a flood cannot crowd out real peers; each is dropped anyway when
        // its 5 s handshake budget runs out.
        let address = TCPConnector.peerAddress(connection)
        guard limiter.allow(address, now: clock.now()) else {
            if refusedByRate.record() {
                logger.warning("\(address) connects faster than \(rate)/s; refusing (\(refusedByRate.count) refused so far)")
            }
            return false
        }
        // Handshakes under way are capped in all and per address; a
        // stranger's idle connection gives way to a newcomer, and known
        // peers' addresses are never the ones to give way.
        let host = TCPConnector.plainHost(address)
        let known = knownAddresses()
        let waiting = pending()
        let verdict = admission.admitConnection(
            from: host, known: known.contains(host),
            pending: waiting.map { .init(number: $0.number, address: $0.remoteHost, known: known.contains($0.remoteHost)) })
        switch verdict {
        case .admit:
            return true
        case .admitEvicting(let number):
            waiting.first { $0.number == number }?.close("a newer connection needs the handshake slot", reason: .handshakeFailed)
            return true
        case .refuse(let limit):
            if refusedHandshakes.record() {
                logger.warning("\(limit); refusing \(address) (\(refusedHandshakes.count) refused so far)")
            }
            return false
        }
    }
}
