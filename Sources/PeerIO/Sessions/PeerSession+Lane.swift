import FoundationEssentials
import PeerCore
import PeerProtocol

/// The session's side of its bulk lane (issue 44; docs/protocol.md §12):
/// the path its bulk takes (``BulkPath``), what arrives on the lane, and
/// the lane's end with the session's. The lane is opened by ``LaneDesk``.
extension PeerSession {
    /// The path bulk takes once the session is established: `opening`
    /// when both ends speak `bulk-lane` and a lane desk runs here
    /// (`laneOwner`), else the session's stream and why.
    func initialBulkPath(laneOwner: Bool) -> BulkPath {
        guard !lifecycle.isForPairing else { return .stream(reason: "a pairing session carries no bulk") }
        guard laneOwner, localHello?.speaks(.bulkLane) == true else { return .stream(reason: "this daemon opens no lanes") }
        guard remoteHello?.speaks(.bulkLane) == true else {
            return .stream(reason: "the peer's release (\(remoteHello?.release ?? "0.1.0")) has no bulk lane")
        }
        return .opening
    }

    /// Where bulk goes, as `peer` reports it.
    package var bulkInfo: BulkPathInfo { bulkPath.info }

    /// Whether its file and stream bytes go on a bulk lane.
    package var bulkOnLane: Bool { if case .lane = bulkPath { true } else { false } }

    /// Whether the session waits for its lane to settle.
    var isOpeningLane: Bool { if case .opening = bulkPath { true } else { false } }

    /// The key a lane for this session is opened under (HKDF of the
    /// handshake's chaining key, docs/protocol.md §12); nil before the
    /// handshake.
    var laneKey: [UInt8]? { noise.laneKey }

    /// The lane is up: bulk goes on it from now on (nothing was sent
    /// while it opened).
    func useLane(_ lane: BulkLane) {
        guard isOpeningLane, !finished else { return lane.close() }
        lane.traffic = self
        bulkPath = .lane(lane)
        sendHeldOpenings()
        transportHasRoom()
    }

    /// No lane: bulk goes on the session's own connection, for `reason`
    /// (`port`: the lane port offered, if one was; `ours`: by this host).
    func keepBulkOnStream(_ reason: String, port: UInt16?, ours: Bool) {
        guard isOpeningLane else { return }
        bulkPath = .stream(reason: reason, port: port, ours: ours)
        sendHeldOpenings()
        transportHasRoom()
    }

    /// The streams opened while the lane opened, now that bulk has its path.
    private func sendHeldOpenings() {
        let held = heldOpenings
        heldOpenings = []
        for message in held { sendBulk(message) }
    }

    /// Ticks the lane; true when there is none or its socket is closed.
    @discardableResult
    func tickLane(now: Date) -> Bool {
        guard case .lane(let lane) = bulkPath else { return true }
        return lane.tick(now: now)
    }

    /// The session ends: so does its lane.
    func closeLane() {
        if case .lane(let lane) = bulkPath { lane.close() }
    }
}

extension PeerSession: LaneTraffic {
    /// A message on the lane: file or stream bytes, read in place, or one
    /// of the messages that follow them (``BulkMessage/ridesLane``);
    /// anything else there breaks the protocol.
    func lane(received plaintext: UnsafeRawBufferPointer) -> Bool {
        guard !finished else { return false }
        if let (head, start) = BulkDataHead.parse(plaintext) {
            if let refusal = remoteHello?.refusal(ofBytesOf: head.feature) {
                fail(refusal)
                return false
            }
            lifecycle.noteReceived(now: clock.now())
            delegate?.session(self, data: head, bytes: UnsafeRawBufferPointer(rebasing: plaintext[start...]))
            return !finished
        }
        do {
            guard case .bulk(let message) = try WireCodec.decode(Array(plaintext)), message.ridesLane else {
                fail("a message on the bulk lane that belongs on the session")
                return false
            }
            if let refusal = remoteHello?.refusal(of: .bulk(message)) {
                fail(refusal)
                return false
            }
            lifecycle.noteReceived(now: clock.now())
            delegate?.session(self, bulk: message, app: .none)
        } catch {
            fail("on the bulk lane: \(error)")
        }
        return !finished
    }

    /// The lane has room again: the data plane sends more.
    func laneHasRoom() { transportHasRoom() }

    /// The lane broke once up: bytes in flight on it are lost, so the
    /// session ends too, and its transfers resume on the next one. A lane
    /// whose connection went (a peer killed, a link gone) ends it as the
    /// session's own connection would, `keepaliveLost`; a frame that did
    /// not open, as a protocol error.
    func laneBroke(_ why: String, corrupt: Bool) {
        if corrupt { return fail("the bulk lane broke: \(why)") }
        perform(lifecycle.transportClosed("the bulk lane: \(why)"))
    }
}
