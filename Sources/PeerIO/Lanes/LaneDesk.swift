import FoundationEssentials
import PeerCore
import PeerSystem
import PeerProtocol

/// The bulk lane feature (issue 44; docs/protocol.md §12): it owns
/// `laneOffer` (type 0x33) and the lane port, opens each session's lane as
/// its ``BulkLanePlan`` says, and hands the lane to the session once it is
/// up, or tells the session to keep bulk on its stream, and why. A lane's
/// traffic is then the session's (``PeerSession+Lane.swift``).
///
/// Adding it was a folder and a line in the daemon's features; the
/// session learned only where bulk goes (``BulkPath``).
@MainActor
package final class LaneDesk: SessionFeature {
    /// One session's lane while it opens.
    private struct Opening {
        weak var session: PeerSession?
        var plan: BulkLanePlan
        /// The offer's token (the offerer's own, or the one the dialer got).
        var token: [UInt8]?
        /// The lane being opened, if any.
        var lane: BulkLane?
        /// The port offered (by the peer, or by this host as offerer), for
        /// `peer` and `doctor`.
        var port: UInt16?
    }

    /// The lane port's socket, until ``start()`` makes its listener.
    private var socket: TCPListener?
    /// The listener, made at ``start()`` (it reports to `self`).
    private var laneListener: LaneListener?
    /// Why there is no lane port, when there is none.
    private let unavailable: LaneUnavailable?
    /// The sessions, by peer: `peer` asks the current one's path.
    private let sessions: SessionTable
    private let logger: Logger
    private let clock: DaemonClock
    /// The one thread that reads every lane, started with the first.
    private let poller = LanePoller()
    /// Lanes opening, by session number.
    private var openings: [Int: Opening] = [:]
    /// Lanes accepted on the port and not yet greeted.
    private var greeting: [ObjectIdentifier: BulkLane] = [:]
    private var nextNumber = 1

    /// A desk whose lane port is `listener`, or none and why (off, or it
    /// could not be opened): sessions
    /// then offer port 0 and keep bulk on their streams.
    package init(listener: Result<TCPListener, LaneUnavailable>, sessions: SessionTable, logger: Logger, clock: DaemonClock) {
        self.sessions = sessions
        self.logger = logger
        self.clock = clock
        switch listener {
        case .success(let opened):
            socket = opened
            unavailable = nil
        case .failure(let why):
            unavailable = why
            logger.notice("no bulk lanes: \(why.text)")
        }
    }

    /// The lane port (nil: none).
    package var port: UInt16? { laneListener?.port }

    // MARK: SessionFeature

    /// Peers announce `bulk-lane` to send `laneOffer`.
    package var wireFeature: WireFeature? { .bulkLane }
    /// `laneOffer`.
    package var messageTypes: Set<UInt8> { [LaneOffer.type] }

    /// Opens the lane port.
    package func start() {
        guard let opened = socket else { return }
        socket = nil
        let listener = LaneListener(listener: opened, logger: logger,
                                    pending: { [unowned self] in Array(greeting.values) + openings.values.compactMap(\.lane) },
                                    accepted: { [unowned self] fd in accept(fd) })
        laneListener = listener
        listener.start()
    }

    /// Closes the port and every lane still opening.
    package func stop() {
        laneListener?.stop()
        for lane in greeting.values { lane.close() }
        greeting = [:]
        for opening in openings.values { opening.lane?.close() }
        openings = [:]
    }

    /// A session whose bulk waits for a lane is up: its responder offers.
    package func sessionUp(_ session: any FeatureSession) {
        guard let session = session as? PeerSession, session.isOpeningLane, openings[session.number] == nil else { return }
        let side: BulkLanePlan.Side = session.role == .invitee ? .offerer : .dialer
        openings[session.number] = Opening(session: session, plan: BulkLanePlan(side: side, now: clock.now()))
        guard side == .offerer else { return }
        let token = Sodium.randomBytes(LaneOffer.tokenLength)
        openings[session.number]?.token = token
        let port: Result<UInt16, LaneUnavailable> = if let port = laneListener?.port { .success(port) } else {
            .failure(unavailable ?? LaneUnavailable("this host's lane port is closed"))
        }
        perform(BulkLanePlan.offer(port: port), for: session.number)
    }

    /// The responder's `laneOffer`: the initiator dials it.
    package func received(type: UInt8, body: [UInt8], on session: any FeatureSession) -> String? {
        let offer: LaneOffer
        do { offer = try LaneOffer.decode(body) } catch { return error.description }
        guard let session = session as? PeerSession, session.isConnected else { return "a laneOffer outside an accepted session" }
        guard session.isOpeningLane else { return session.role == .inviter ? nil : "a laneOffer from the session's initiator" }
        if openings[session.number] == nil {
            openings[session.number] = Opening(session: session, plan: BulkLanePlan(side: session.role == .invitee ? .offerer : .dialer, now: clock.now()))
        }
        guard var plan = openings[session.number]?.plan else { return nil }
        let actions = plan.offerReceived(port: offer.port)
        for case .violation(let why) in actions { return why }
        openings[session.number]?.plan = plan
        // The dialer's token is the offer's (the offerer keeps its own).
        openings[session.number]?.token = offer.token
        perform(actions, for: session.number)
        return nil
    }

    /// The session ended: its lane, if still opening, goes too.
    package func sessionDown(_ session: any FeatureSession, wasCurrent: Bool) {
        guard let opening = openings.removeValue(forKey: session.number) else { return }
        opening.lane?.close()
    }

    /// Deadlines: an unsettled plan gives up, and lanes opening are ticked.
    package func tick(now: Date) {
        for (number, opening) in openings {
            var plan = opening.plan
            let actions = plan.tick(now: now)
            openings[number]?.plan = plan
            perform(actions, for: number)
            _ = openings[number]?.lane?.tick(now: now)
        }
        for lane in Array(greeting.values) { lane.tick(now: now) }
    }

    /// `peer`: which path its bulk takes.
    package func describe(_ result: inout PeerResult) {
        guard let session = sessions[result.peer.id], session.isConnected else { return }
        result.bulk = session.bulkInfo
    }

    /// `status`: the lane port, or why there is none.
    package func describe(_ status: inout DaemonStatus) {
        status.lanePort = port.map(Int.init)
        status.laneError = port == nil ? (unavailable?.text ?? "the lane port is closed") : nil
    }

    // MARK: Performing the plan

    private func perform(_ actions: [BulkLanePlan.Action], for number: Int) {
        guard let opening = openings[number], let session = opening.session else {
            openings[number] = nil
            return
        }
        for action in actions {
            switch action {
            case .sendOffer(let port):
                guard let token = opening.token else { continue }
                if port != 0 { openings[number]?.port = port }
                session.send(feature: LaneOffer(port: port, token: token).wire)
            case .dial(let port):
                openings[number]?.port = port
                dial(session, port: port, number: number)
            case .useLane:
                guard let lane = openings.removeValue(forKey: number)?.lane else { continue }
                lane.opener = nil
                session.useLane(lane)
            case .useStream(let why):
                openings.removeValue(forKey: number)?.lane?.close()
                logger.info("session \(number): bulk stays on the session's stream: \(why)")
                session.keepBulkOnStream(why, port: opening.port, ours: opening.plan.side == .offerer)
            case .violation(let why):
                session.close(why, reason: .protocolError)
            }
        }
    }

    private func dial(_ session: PeerSession, port: UInt16, number: Int) {
        guard let endpoint = session.endpoint, let key = session.laneKey, let token = openings[number]?.token else {
            return laneFailed(number, "the session has no address or key to open a lane with")
        }
        var target = endpoint
        target.port = port
        do {
            let lane = try BulkLane(number: number, dialing: target, token: token, key: key, opener: self, poller: poller, clock: clock)
            openings[number]?.lane = lane
        } catch {
            laneFailed(number, "connect to \(target.hostPort): \(error)")
        }
    }

    private func accept(_ fd: FileDescriptor) {
        let lane = BulkLane(number: nextNumber, accepted: fd, opener: self, poller: poller, clock: clock)
        nextNumber += 1
        greeting[ObjectIdentifier(lane)] = lane
    }

    private func laneFailed(_ number: Int, _ why: String) {
        guard var plan = openings[number]?.plan else { return }
        let actions = plan.laneFailed(why)
        openings[number]?.plan = plan
        perform(actions, for: number)
    }

    /// The opening whose lane is `lane`.
    private func number(of lane: BulkLane) -> Int? { openings.first { $0.value.lane === lane }?.key }
}

extension LaneDesk: LaneOpener {
    func laneUp(_ lane: BulkLane) {
        guard let number = number(of: lane), var plan = openings[number]?.plan else { return lane.close() }
        let actions = plan.laneUp()
        openings[number]?.plan = plan
        perform(actions, for: number)
    }

    func laneFailed(_ lane: BulkLane, _ why: String) {
        if greeting.removeValue(forKey: ObjectIdentifier(lane)) != nil {
            logger.info("lane from \(lane.remoteHost) refused: \(why)")
            return
        }
        guard let number = number(of: lane) else { return }
        laneFailed(number, why)
    }

    func laneKey(for token: [UInt8], lane: BulkLane) -> [UInt8]? {
        greeting.removeValue(forKey: ObjectIdentifier(lane))
        // The offerer's opening with this token, still waiting for its lane.
        guard let (number, opening) = openings.first(where: { $0.value.plan.side == .offerer && $0.value.token == token && $0.value.lane == nil }),
              opening.plan.step == .offered, let key = opening.session?.laneKey else { return nil }
        openings[number]?.lane = lane
        return key
    }
}
