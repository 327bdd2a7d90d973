import FoundationEssentials
import Glibc
import PeerCore
import PeerProtocol

/// Makes sessions: an admitted connection on the session port, or a dial
/// to a peer's addresses in turn. It applies this host's session limits
/// (``SessionAdmission``) to dials and to proven incoming sessions, and
/// files every new session in the ``SessionTable``.
@MainActor
package final class SessionOpener {
    private let config: DaemonConfiguration
    private let identityKey: IdentityKey
    private let table: SessionTable
    private let trust: TrustDesk
    /// The features that plug into every session it makes.
    private let features: SessionFeatures
    private let logger: Logger
    private let clock: DaemonClock
    private let admission: SessionAdmission
    /// This host's published name, for invitations.
    private let name: @MainActor () -> String
    /// Where new sessions report (the ``SessionDirector``; set before use).
    package weak var delegate: (any PeerSessionDelegate)?

    /// An opener filing sessions in `table`.
    /// `name` is this host's published name.
    package init(config: DaemonConfiguration, identityKey: IdentityKey, table: SessionTable, trust: TrustDesk,
                features: SessionFeatures = .none, logger: Logger, clock: DaemonClock, name: @escaping @MainActor () -> String) {
        self.name = name
        self.config = config
        self.identityKey = identityKey
        self.table = table
        self.trust = trust
        self.features = features
        self.logger = logger
        self.clock = clock
        admission = SessionAdmission(maxSessions: config.maxSessions, maxPending: config.maxPendingHandshakes,
                                     maxPendingPerAddress: config.maxPendingHandshakesPerAddress)
    }

    /// The session lifecycle's limits.
    package var limits: SessionLifecycle.Limits {
        var limits = SessionLifecycle.Limits()
        limits.maxMessage = config.maxMessage
        return limits
    }

    /// Application bytes queued per session before `send` answers `busy`:
    /// 4 MiB, or one whole `--max-message` message with its framing when
    /// that is larger, so every size up to `--max-message` can be sent.
    private var sendLimit: Int { max(4 << 20, WireCodec.framedSize(ofMessage: config.maxMessage)) }

    /// An admitted connection on the session port becomes a session.
    package func accepted(_ connection: FileDescriptor) {
        guard let delegate else { return connection.close() }
        let session = PeerSession(number: table.nextNumber(), accepted: connection, identity: identityKey, name: name(),
                                  limits: limits, sendLimit: sendLimit, delegate: delegate, features: features, clock: clock)
        table.add(session)
        logger.debug("session \(session.number): accepted from \(session.remoteAddress)")
    }

    /// Dial order: IPv4 before IPv6 (no scope needed), the rest as listed.
    package func dialOrder(_ endpoints: [Endpoint]) -> [Endpoint] {
        endpoints.filter { $0.family == .ipv4 } + endpoints.filter { $0.family == .ipv6 }
    }

    /// The local limit a dial to the peer with `peerID` would pass, if any.
    package func dialLimit(_ peerID: String?) -> SessionLimit? {
        admission.admitDial(paired: trust.isPaired(peerID), others: authenticated())
    }

    /// The local limit a proven incoming `session` from `peerID` passes, if any.
    package func limitFor(incoming session: PeerSession, peerID: String) -> SessionLimit? {
        admission.admitAuthenticated(paired: trust.isPaired(peerID), address: session.remoteHost, others: authenticated(except: session))
    }

    /// Starts a session to the first endpoint that accepts a connect
    /// attempt; `app` asks for it on behalf of that app alone.
    @discardableResult
    package func dial(_ peer: UUID, endpoints: [Endpoint], expected: String?, context: [UInt8], timeout: TimeInterval, pairing: Bool = false,
                     app: AppName = .none) -> Bool {
        if let limit = dialLimit(expected) {
            logger.warning("\(limit); not dialling")
            return false
        }
        guard let delegate else { return false }
        var rest = endpoints[...]
        while let endpoint = rest.popFirst() {
            do {
                let session = try PeerSession(number: table.nextNumber(), dialing: endpoint, remaining: Array(rest), expectedPeerID: expected,
                                              identity: identityKey, name: name(), context: context, inviteTimeout: timeout,
                                              limits: limits, sendLimit: sendLimit, pairing: pairing, app: app, delegate: delegate, features: features, clock: clock)
                session.peerUUID = peer
                table.add(session)
                table.bind(session, to: peer)
                logger.debug("session \(session.number): dialling \(session.remoteAddress)")
                return true
            } catch {
                logger.info("cannot dial \(endpoint.hostPort): \(error)")
            }
        }
        return false
    }

    /// Starts a session to an address given by a client (`add`): no row and
    /// no expected key yet; the peer's row is found or made once it proves
    /// its key (``SessionAdoption``). Throws when the connect cannot start
    /// (no route, say).
    package func dial(address endpoint: Endpoint, context: [UInt8], timeout: TimeInterval) throws(SystemError) -> PeerSession {
        guard let delegate else { throw SystemError("connect", errno: ESHUTDOWN, context: "peerd is stopping") }
        let session = try PeerSession(number: table.nextNumber(), dialing: endpoint, remaining: [], expectedPeerID: nil,
                                      identity: identityKey, name: name(), context: context, inviteTimeout: timeout,
                                      limits: limits, sendLimit: sendLimit, delegate: delegate, features: features, clock: clock)
        table.add(session)
        logger.debug("session \(session.number): dialling \(session.remoteAddress) (added by address)")
        return session
    }

    /// Authenticated sessions other than `except`, for admission.
    private func authenticated(except: PeerSession? = nil) -> [SessionAdmission.Authenticated] {
        table.sessions.filter { $0 !== except && $0.remoteStaticKey != nil && !$0.isClosed }.map {
            SessionAdmission.Authenticated(address: $0.remoteHost, paired: trust.isPaired($0.remotePeerID), accepted: $0.isConnected)
        }
    }
}
