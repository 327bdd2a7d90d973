import FoundationEssentials
import PeerCore
import PeerSystem

/// One session's datagram path (docs/protocol.md §11): its two ciphers,
/// the index this host chose for it, what the peer said of its side, the
/// send counter, the replay window, the probes' verdict and the counts.
/// It ends with the session; its ciphers then wipe their keys.
@MainActor
final class DatagramLink {
    /// The index every datagram to this host for the session carries.
    let localIndex: UInt32
    /// The session, while it lasts (the desk removes the link as it ends).
    private(set) weak var session: PeerSession?
    /// The session's number, for logs and the desk's table.
    let sessionNumber: Int
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

    /// A link for `session` under `index`, with the ciphers its handshake made.
    init(index: UInt32, session: PeerSession, ciphers: (send: DatagramCipher, receive: DatagramCipher)) {
        localIndex = index
        self.session = session
        sessionNumber = session.number
        sendCipher = ciphers.send
        receiveCipher = ciphers.receive
    }

    /// What `peer` shows of it.
    var info: DatagramInfo {
        DatagramInfo(path: path.state.rawValue, port: remotePort.map(Int.init), roundTripMs: path.roundTrip.map { ($0 * 1_000_000).rounded() / 1_000 },
                     sent: counters.sent, received: counters.received, dropped: counters.droppedByName)
    }
}
