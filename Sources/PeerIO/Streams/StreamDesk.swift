import CMalloc
import FoundationEssentials
import PeerCore
import PeerSystem

/// Named byte streams between peers (issue 12, point 6; protocol.md §8):
/// a `pipe` client on each side names the same stream, each side sends
/// `streamOpen`, and once both opens met the stream carries bytes both
/// ways, each direction with its own credit, until both half-close or one
/// side resets it.
@MainActor
public final class StreamDesk {
    /// Streams at once.
    static let maxStreams = 64
    /// How long a peer's `streamOpen` waits for a local pipe of its name.
    static let openWait: TimeInterval = 30
    /// Remote opens held per peer.
    static let maxRemoteOpens = 16

    private let logger: Logger
    private let clock: DaemonClock
    /// Local pipes, waiting or open, by peer and name.
    private var streams: [UUID: [String: PipeStream]] = [:]
    /// Open streams by flow.
    private var byFlow: [FlowID: PipeStream] = [:]
    /// Opens from peers that no local pipe has met yet.
    private var remoteOpens: [UUID: [String: (flow: FlowID, expires: Date)]] = [:]
    /// The sessions, by peer: the daemon's one table, given at init.
    private let sessions: any BulkSessions

    /// A desk over the sessions of `sessions`.
    public init(sessions: any BulkSessions, logger: Logger, clock: DaemonClock) {
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

    /// `pipe`: joins `input` and `output` to the stream `name` with `peer`;
    /// `answer` is called once, when the stream is over.
    public func pipe(to peer: PeerSnapshot, name: String, input: FileDescriptor, output: FileDescriptor, client: ControlConnection,
                     answer: @escaping @MainActor (ControlReply) -> Void) {
        guard let session = session(peer.id), session.isConnected else {
            input.close()
            output.close()
            return answer(.error(ControlError(.notConnected, "'\(peer.name)' is not connected; invite it first")))
        }
        // A peer whose release takes no streams is refused at once:
        // nothing is sent, the session stays up (docs/protocol.md §9).
        let hello = session.remoteHello ?? .silent
        guard hello.speaks(.streams) else {
            input.close()
            output.close()
            return answer(.error(.unsupported(.streams, peer: peer.name, release: hello.release)))
        }
        guard streams[peer.id]?[name] == nil else {
            input.close()
            output.close()
            return answer(.error(ControlError(.invalidParams, "a stream named '\(name)' with '\(peer.name)' is already open here")))
        }
        guard streams.values.reduce(0, { $0 + $1.count }) < Self.maxStreams else {
            input.close()
            output.close()
            return answer(.error(ControlError(.busy, "\(Self.maxStreams) streams are open; try again later")))
        }
        let port = StreamPort(input: input, output: output)
        let stream = PipeStream(ownFlow: FlowID(bytes: Sodium.randomBytes(FlowID.length))!, peer: peer.id, name: name, port: port,
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
        streams[peer.id, default: [:]][name] = stream
        session.sendBulk(.streamOpen(stream.ownFlow, name: name))
        logger.info("stream '\(name)' with '\(peer.name)': opened here")
        if let theirs = remoteOpens[peer.id]?.removeValue(forKey: name) { establish(stream, theirs: theirs.flow) }
    }

    // MARK: The wire

    /// A stream message, or a `credit` for a stream.
    func received(_ message: BulkMessage, from peer: UUID, on session: any BulkSession) {
        switch message {
        case .streamOpen(let flow, let name):
            if let stream = streams[peer]?[name], stream.flow == nil {
                establish(stream, theirs: flow)
            } else if (remoteOpens[peer]?.count ?? 0) < Self.maxRemoteOpens {
                remoteOpens[peer, default: [:]][name] = (flow, clock.now().addingTimeInterval(Self.openWait))
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
                logger.info("stream '\(stream.name)': reset by the peer (\(reason.rawValue): \(text))")
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
    /// to the local reader, or kept until it can take them.
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
        logger.info("stream '\(stream.name)' \(flow): open both ways")
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
            let sent = session.transmitBulk(capacity: head + min(BulkCodec.maxStreamData, stream.credit.available)) { raw in
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
                session.sendBulk(.streamEnd(flow))
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
        logger.info("stream '\(stream.name)': closed both ways (\(stream.bytesSent) bytes sent, \(stream.bytesReceived) received)")
        forget(stream)
        stream.finish(reason: nil, detail: nil)
    }

    /// Ends a stream here and tells the peer.
    func reset(_ stream: PipeStream, _ reason: FlowEndReason, _ why: String) {
        guard !stream.finished else { return }
        logger.info("stream '\(stream.name)': reset here (\(reason.rawValue): \(why))")
        session(stream.peer)?.sendBulk(.streamReset(stream.flow ?? stream.ownFlow, reason: reason, text: why))
        forget(stream)
        stream.finish(reason: reason, detail: why)
    }

    private func forget(_ stream: PipeStream) {
        streams[stream.peer]?[stream.name] = nil
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
    public func tick(now: Date) {
        for (peer, opens) in remoteOpens {
            for (name, open) in opens where now >= open.expires {
                remoteOpens[peer]?[name] = nil
                session(peer)?.sendBulk(.streamReset(open.flow, reason: .unknownName, text: "no pipe named '\(name)' here"))
            }
        }
        for stream in streams.values.flatMap(\.values) where stream.client.hasHungUp {
            reset(stream, .closed, "the local program went away")
        }
    }

    /// Ends every stream (shutdown).
    public func stop() {
        for stream in streams.values.flatMap(\.values) { reset(stream, .closed, "peerd is stopping") }
    }
}
