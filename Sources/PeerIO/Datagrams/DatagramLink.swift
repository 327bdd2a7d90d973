import FoundationEssentials
import PeerCore
import PeerSystem
import PeerProtocol

/// One session's datagram path (docs/protocol.md §11): its two ciphers,
/// the index this host chose for it, what the peer said of its side, the
/// send counter, the replay window, the probes' verdict, the counts, and
/// what the session layer last said of its peer (``DatagramLink/Audience``).
/// It lives on the ``DatagramEngine``'s queue alone and ends with the
/// session; its ciphers then wipe their keys.
final class DatagramLink {
    /// Who may receive what the link brings, as the session layer last
    /// said (``DatagramDesk`` refreshes it when the session changes and
    /// every second): the engine's queue never reads the main actor's state.
    struct Audience: Sendable, Equatable {
        /// The peer's row, once adopted.
        var peer: UUID? {
            didSet { peerBytes = peer.map(DatagramRecord.uuidBytes) ?? [] }
        }
        /// Its 16 bytes, as records carry them (made once, not per datagram).
        private(set) var peerBytes: [UInt8] = []
        /// Whether the session is its peer's current one.
        var current = false
        /// Whether it carries the default app.
        var carriesDefault = false
        /// The apps connected with the peer.
        var apps: Set<AppName> = []

        /// Who may receive, as the session layer says.
        init(peer: UUID?, current: Bool, carriesDefault: Bool, apps: Set<AppName>) {
            self.peer = peer
            peerBytes = peer.map(DatagramRecord.uuidBytes) ?? []
            self.current = current
            self.carriesDefault = carriesDefault
            self.apps = apps
        }

        /// No one yet.
        init() {}

        /// Whether datagrams of `app` may be delivered, or sent.
        func admits(_ app: AppName) -> Bool {
            peer != nil && current && (app.isDefault ? carriesDefault : apps.contains(app))
        }
    }

    /// The index every datagram to this host for the session carries.
    let localIndex: UInt32
    /// The session's number, for logs and the engine's table.
    let sessionNumber: Int
    /// The peer's id, for logs.
    let name: String
    /// Seals what goes to the peer.
    let sendCipher: DatagramCipher
    /// Opens what comes from it.
    let receiveCipher: DatagramCipher
    /// The peer's index for the session, once its `datagramPath` came.
    var remoteIndex: UInt32?
    /// Where the peer takes datagrams: the session's address at the port it said.
    var address: DatagramAddress?
    /// The port it said (0: none).
    var remotePort: UInt16?
    /// The next counter to send; a counter is never used twice.
    var nextCounter: UInt64 = 0
    /// What was received already.
    var window = DatagramReplayWindow()
    /// Whether datagrams cross.
    var path = DatagramPath()
    /// What crossed, and what was dropped.
    var counters = DatagramCounters()
    /// Datagrams taken from the peer in the current second (the per-peer bound).
    var thisSecond = 0
    /// Who may receive.
    var audience = Audience()

    /// A link under `index` for session `sessionNumber` with the peer
    /// `name`, with the ciphers its handshake made.
    init(index: UInt32, sessionNumber: Int, name: String, ciphers: (send: DatagramCipher, receive: DatagramCipher)) {
        localIndex = index
        self.sessionNumber = sessionNumber
        self.name = name
        sendCipher = ciphers.send
        receiveCipher = ciphers.receive
    }

    /// What `peer` shows of it.
    var info: DatagramInfo {
        DatagramInfo(path: path.state.rawValue, port: remotePort.map(Int.init), roundTripMs: path.roundTrip.map { ($0 * 1_000_000).rounded() / 1_000 },
                     sent: counters.sent, received: counters.received, dropped: counters.droppedByName)
    }
}
