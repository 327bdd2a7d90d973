import CMalloc
import FoundationEssentials
import PeerCore
import PeerSystem
import PeerProtocol

/// Named byte streams between peers (issue 12, point 6; protocol.md §8):
/// a `pipe` client on each side names the same stream, each side sends
/// `streamOpen`, and once both opens met the stream carries bytes both
/// ways, each direction with its own credit, until both half-close or one
/// side resets it.
@MainActor
package final class StreamDesk {
    /// Streams at once.
    static let maxStreams = 64
    /// How long a peer's `streamOpen` waits for a local pipe of its name.
    static let openWait: TimeInterval = 30
    /// Remote opens held per peer.
    static let maxRemoteOpens = 16

    private let logger: Logger
    private let clock: DaemonClock
    /// Local pipes, waiting or open, by peer, app and name.
    private var streams: [UUID: [StreamKey: PipeStream]] = [:]
    /// Open streams by flow.
    private var byFlow: [FlowID: PipeStream] = [:]
    /// Opens from peers that no local pipe has met yet.
    private var remoteOpens: [UUID: [StreamKey: (flow: FlowID, expires: Date)]] = [:]
    /// The sessions, by peer: the daemon's one table, given at init.
    private let sessions: any BulkSessions

    /// A desk over the sessions of `sessions`.
    package init(sessions: any BulkSessions, logger: Logger, clock: DaemonClock) {
        self.sessions = sessions
        self.logger = logger
        self.clock = clock
    }

    /// The session counting for `peer`.
    func session(_ peer: UUID) -> (any BulkSession)? { sessions.bulkSession(for: peer) }

    /// A stream ended: the memory its bulk work churned through goes back.
    private func ended() { malloc_trim(0) }

    /// Whether `flow` is one of this desk's streams.
    func owns(_ flow: FlowID) -> Bool { byFlow[flow] != nil }

    // MARK: Clients

    /// `pipe`: joins `input` and `output` to the stream `name` of `app`
    /// with `peer`; `answer` is called once, when the stream is over.
    package func pipe(to peer: PeerSnapshot, name: String, app: AppName = .none, input: FileDescriptor, output: FileDescriptor,
                     client: ControlConnection, answer: @escaping @MainActor (ControlReply) -> Void) {
        let key = StreamKey(app: app, name: name)
        let refuse = { (error: ControlError) in
            input.close()
            output.close()
            answer(.error(error))
        }
        guard let session = session(peer.id), session.isConnected else {
            return refuse(ControlError(.notConnected, "'\(peer.name)' is not connected; invite it first"))
        }
        // A peer whose release takes no streams, or no apps for an app's
        // stream, is refused at once: nothing is sent, the session stays
        // up (docs/protocol.md §9).
        let hello = session.remoteHello ?? .silent
        guard hello.speaks(.streams) else { return refuse(.unsupported(.streams, peer: peer.name, release: hello.release)) }
        if !app.isDefault, !hello.speaks(.apps) { return refuse(.unsupported(.apps, peer: peer.name, release: hello.release)) }
        if app.isDefault, !session.carriesDefault { return refuse(.appOnly(peer.name, app: session.admission)) }
        guard streams[peer.id]?[key] == nil else {
            return refuse(ControlError(.invalidParams, "a stream \(key.shown) with '\(peer.name)' is already open here"))
        }
        guard streams.values.reduce(0, { $0 + $1.count }) < Self.maxStreams else {
            return refuse(ControlError(.busy, "\(Self.maxStreams) streams are open; try again later"))
        }
        let port = StreamPort(input: input, output: output)
        let stream = PipeStream(ownFlow: FlowID(bytes: Sodium.randomBytes(FlowID.length))!, peer: peer.id, key: key, port: port,
                                client: client, answer: answer)
        port.start(onReadable: { [weak self, weak stream] in
            guard let self, let stream, let session = self.session(stream.peer) else { return }
            session.wantsBulkTurn()
        }, onWritten: { [weak self, weak stream] count in
            guard let self, let stream else { return }
            self.written(count, on: stream)
        }, onBroken: { [weak self, weak stream] why in
            guard let self, let stream else { return }
            self.reset(stream, .closed, why)
        })
        streams[peer.id, default: [:]][key] = stream
        session.sendBulk(.streamOpen(stream.ownFlow, name: name), app: app)
        logger.info("stream \(key.shown) with '\(peer.name)': opened here")
        if let theirs = remoteOpens[peer.id]?.removeValue(forKey: key) { establish(stream, theirs: theirs.flow) }
    }

    // MARK: The wire

    /// A stream message, or a `credit` for a stream; a `streamOpen` is of
    /// `app` (the default app's when it came plain, not in `appFlow`).
    func received(_ message: BulkMessage, app: AppName = .none, from peer: UUID, on session: any BulkSession) {
        switch message {
        case .streamOpen(let flow, let name):
            let key = StreamKey(app: app, name: name)
            if let stream = streams[peer]?[key], stream.flow == nil {
                establish(stream, theirs: flow)
            } else if (remoteOpens[peer]?.count ?? 0) < Self.maxRemoteOpens {
                remoteOpens[peer, default: [:]][key] = (flow, clock.now().addingTimeInterval(Self.openWait))
            } else {
                session.sendBulk(.streamReset(flow, reason: .busy, text: "too many streams wait here"))
            }
        case .streamEnd(let flow):
            guard let stream = byFlow[flow], stream.peer == peer else { return }
            stream.receivedEnd = true
            stream.port.finishOutput()
            completeIfDone(stream)
        case .streamReset(let flow, let reason, let text):
            if let stream = byFlow[flow], stream.peer == peer {
                logger.info("stream \(stream.key.shown): reset by the peer (\(reason.rawValue): \(text))")
                forget(stream)
                stream.finish(reason: reason, detail: "reset by the peer: \(text)")
            } else if let stream = streams[peer]?.values.first(where: { $0.ownFlow == flow }) {
                forget(stream)
                stream.finish(reason: reason, detail: "reset by the peer: \(text)")
            }
        case .credit(let flow, let bytes):
            guard let stream = byFlow[flow], stream.peer == peer else { return }
            guard stream.credit.grant(Int(bytes)) else { return reset(stream, .protocolError, "credit past the largest window") }
            session.wantsBulkTurn()
        default:
            break
        }
    }

    /// Stream bytes arrived (in place, valid only during the call): handed
    /// to the local reader, or kept until it can take them. A stream's
    /// window stays at ``ReceiveWindow/grownLimit`` on a lane too: its
    /// bytes are written to the reader on the main actor, and a 4 MiB
    /// window measured 3.5 ms at p99 for a round trip beside a 1 GiB pipe
    /// where 512 KiB measured 1.2, for 8% more throughput
    /// (docs/performance.md, "Issue 44").
    func data(_ flow: FlowID, bytes: UnsafeRawBufferPointer, from peer: UUID) {
        guard let stream = byFlow[flow], stream.peer == peer else { return }
        guard !stream.receivedEnd, stream.window.received(bytes.count, now: clock.now()) else {
            return reset(stream, .protocolError, "stream bytes past the credit given, or after the end")
        }
        stream.bytesReceived += Int64(bytes.count)
        stream.port.write(bytes)
    }

    /// Both opens met: the flow is the smaller id, the same on both sides.
    private func establish(_ stream: PipeStream, theirs: FlowID) {
        let flow = stream.ownFlow.bytes.lexicographicallyPrecedes(theirs.bytes) ? stream.ownFlow : theirs
        stream.flow = flow
        byFlow[flow] = stream
        logger.info("stream \(stream.key.shown) \(flow): open both ways")
        if let session = session(stream.peer) { session.wantsBulkTurn() }
    }

    /// The open streams with `peer` that may send, in a stable order (for turns).
    func sendingFlows(to peer: UUID) -> [FlowID] {
        (streams[peer]?.values ?? [:].values).filter { !$0.sentEnd && !$0.finished }.compactMap(\.flow)
            .sorted { $0.bytes.lexicographicallyPrecedes($1.bytes) }
    }

    /// One turn of `flow`: up to `limit` bytes. Returns the bytes sent.
    @discardableResult
    func pump(_ flow: FlowID, limit: Int) -> Int {
        guard let stream = byFlow[flow] else { return 0 }
        let before = stream.bytesSent
        pump(stream, limit: limit)
        return Int(stream.bytesSent - before)
    }

    /// Sends what the input has, as far as credit, the session's room and `limit` go.
    private func pump(_ stream: PipeStream, limit: Int) {
        guard stream.flow != nil, !stream.sentEnd, !stream.finished, let flow = stream.flow, let session = session(stream.peer) else { return }
        let start = stream.bytesSent
        while session.bulkRoom > 0 && stream.credit.available > 0 && stream.bytesSent - start < Int64(limit) {
            let head = BulkCodec.streamDataHeadLength
            var outcome = StreamPort.Read.wouldBlock
            // An app's stream stays on the session, where its opening went (protocol.md §12).
            let lane = stream.key.app.isDefault
            let sent = session.transmitBulk(capacity: head + min(BulkCodec.maxStreamData, stream.credit.available), lane: lane) { raw in
                outcome = stream.port.read(into: UnsafeMutableRawBufferPointer(rebasing: raw[head...]))
                guard case .bytes(let count) = outcome else { return nil }
                BulkCodec.writeStreamDataHead(flow, into: raw)
                return head + count
            }
            switch outcome {
            case .bytes(let count):
                guard sent != nil else { return }
                _ = stream.credit.take(count)
                stream.bytesSent += Int64(count)
            case .wouldBlock:
                return stream.port.wantInput(true)
            case .end:
                stream.sentEnd = true
                stream.port.closeInput()
                session.sendBulk(.streamEnd(flow), lane: lane)
                return completeIfDone(stream)
            case .failed(let why):
                return reset(stream, .ioError, why)
            }
        }
        // Waiting for room (the session says when), for credit (the peer's),
        // or for its next turn.
        stream.port.wantInput(false)
    }

    /// Output drained: the bytes count as consumed, and credit goes back.
    private func written(_ count: Int, on stream: PipeStream) {
        guard let flow = stream.flow, let credit = stream.window.consumed(count, now: clock.now()) else { return completeIfDone(stream) }
        session(stream.peer)?.sendBulk(.credit(flow, bytes: UInt32(credit)))
        completeIfDone(stream)
    }

    private func completeIfDone(_ stream: PipeStream) {
        guard stream.isComplete, !stream.finished else { return }
        logger.info("stream \(stream.key.shown): closed both ways (\(stream.bytesSent) bytes sent, \(stream.bytesReceived) received)")
        forget(stream)
        stream.finish(reason: nil, detail: nil)
    }

    /// Ends a stream here and tells the peer.
    func reset(_ stream: PipeStream, _ reason: FlowEndReason, _ why: String) {
        guard !stream.finished else { return }
        logger.info("stream \(stream.key.shown): reset here (\(reason.rawValue): \(why))")
        session(stream.peer)?.sendBulk(.streamReset(stream.flow ?? stream.ownFlow, reason: reason, text: why))
        forget(stream)
        stream.finish(reason: reason, detail: why)
    }

    private func forget(_ stream: PipeStream) {
        streams[stream.peer]?[stream.key] = nil
        if let flow = stream.flow { byFlow[flow] = nil }
        ended()
    }

    // MARK: Sessions and the clock

    /// The session with `peer` ended: its streams cannot go on.
    func sessionDown(_ peer: UUID) {
        for stream in Array(streams[peer]?.values ?? [:].values) {
            forget(stream)
            stream.finish(reason: .closed, detail: "the session with the peer ended")
        }
        remoteOpens[peer] = nil
    }

    /// Clock tick: opens nobody met are refused; streams whose client went are reset.
    package func tick(now: Date) {
        for (peer, opens) in remoteOpens {
            for (key, open) in opens where now >= open.expires {
                remoteOpens[peer]?[key] = nil
                session(peer)?.sendBulk(.streamReset(open.flow, reason: .unknownName, text: "no pipe \(key.shown) here"))
            }
        }
        for stream in streams.values.flatMap(\.values) where stream.client.hasHungUp {
            reset(stream, .closed, "the local program went away")
        }
    }

    /// Ends every stream (shutdown).
    package func stop() {
        for stream in streams.values.flatMap(\.values) { reset(stream, .closed, "peerd is stopping") }
    }
}
