import FoundationEssentials
import Glibc
import PeerProtocol
import PeerSystem

/// Channels, pipes and files: each a flow of bytes with the peer beside
/// the requests (docs/control-protocol.md, "Message channels", `pipe`,
/// `sendFile`).
extension PeerClient {
    /// A message channel to `peer` (of `app`, or the default app's), on a
    /// connection of its own whose answer comes when the channel is over.
    /// From a 0.3.0 daemon on, it returns once the daemon has opened the
    /// channel (its `channelOpened` event), so every message the peer sends
    /// after that comes through it, and a refusal is thrown here.
    public func channel(to peer: UUID, app: String? = nil) async throws(PeerError) -> PeerChannel {
        let announces = try await status().takesChannelOptions
        let (opened, signal) = AsyncStream<Void>.makeStream()
        let (mine, answer) = try await longRequest(.channel, peer: peer, app: app, label: "channel", onEvent: { event in
            if event.type == .channelOpened { signal.yield() }
        }, whenDone: { signal.finish() }) { params in
            var params = params
            if announces { params.opened = true }
            return params
        }
        if announces {
            var iterator = opened.makeAsyncIterator()
            // No event: the answer came first, which is a refusal.
            if await iterator.next() == nil, case .failure(let refusal) = await answer.value {
                mine.close()
                throw refusal
            }
        }
        return PeerChannel(socket: mine, answer: answer)
    }


    /// A byte stream to `peer` named `name`: it meets the peer's pipe of
    /// that name (and app). See ``PeerPipe``.
    public func pipe(to peer: UUID, name: String, app: String? = nil) async throws(PeerError) -> PeerPipe {
        let (mine, answer) = try await longRequest(.pipe, peer: peer, app: app, label: "pipe") { params in
            var params = params
            params.name = name
            return params
        }
        return PeerPipe(descriptor: mine, answer: answer)
    }

    /// Sends the regular file at `path` to `peer`, named by its last path
    /// component; its progress follows on ``PeerTransfer/progress``.
    public func sendFile(_ path: String, to peer: UUID, app: String? = nil) async throws(PeerError) -> PeerTransfer {
        var watching = events(app: app).makeAsyncIterator()
        try await watching.prepare()
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw .transport("cannot open \(path): \(String(cString: strerror(errno)))") }
        let file = FileDescriptor(rawValue: fd)
        defer { file.close() }
        var info = stat()
        guard fstat(fd, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { throw .transport("\(path) is not a regular file") }
        let name = path.split(separator: "/").last.map(String.init) ?? path
        var params = ControlParams(peer: peer.uuidString.lowercased())
        params.files = [SendFileEntry(name: name, size: Int64(info.st_size), mode: UInt32(info.st_mode & 0o777), mtime: Int64(info.st_mtim.tv_sec))]
        params.app = app
        let sent = params
        let result = try await requests.run { client throws(ControlClientError) in
            try client.call(.sendFile, params: sent, descriptors: [file])
        }
        return PeerTransfer(started: result.transfer, events: watching, client: self)
    }

    /// Cancels transfer `id`, in either direction.
    @discardableResult
    public func cancelTransfer(_ id: String, app: String? = nil) async throws(PeerError) -> TransferInfo {
        var params = ControlParams(transfer: id)
        params.app = app
        return try await requests.call(.cancelTransfer, params).transfer
    }

    /// Accepts the incoming transfer `id` (its `files` by number, every
    /// acceptable one when nil), as `peerctl accept-transfer` does.
    @discardableResult
    public func acceptTransfer(_ id: String, files: [Int]? = nil, app: String? = nil) async throws(PeerError) -> TransferInfo {
        var params = ControlParams(transfer: id)
        params.accept = files
        params.app = app
        return try await requests.call(.acceptTransfer, params).transfer
    }

    /// Declines the incoming transfer `id` whole.
    @discardableResult
    public func declineTransfer(_ id: String, app: String? = nil) async throws(PeerError) -> TransferInfo {
        var params = ControlParams(transfer: id)
        params.app = app
        return try await requests.call(.declineTransfer, params).transfer
    }

    /// A request whose answer comes when its flow is over, on a
    /// connection of its own: one end of a socket pair goes with it (as
    /// both input and output for a pipe), the other is returned.
    func longRequest<R>(_ call: ControlCall<R>, peer: UUID?, app: String?, label: String, seqPacket: Bool = false,
                                onEvent: (@Sendable (ControlEvent) -> Void)? = nil, whenDone: @escaping @Sendable () -> Void = {},
                                params: (ControlParams) -> ControlParams) async throws(PeerError)
        -> (FileDescriptor, Task<Result<R, PeerError>, Never>) {
        let lane = ClientLane(path: socketPath, label: label)
        if let app { _ = try await lane.call(.register, .app(app)) }
        let (mine, theirs) = try BlockingIO.socketPair(seqPacket: seqPacket)
        var request = ControlParams(peer: peer?.uuidString.lowercased())
        request.app = app
        let final = params(request)
        let descriptors = call.method == .pipe ? [theirs, theirs] : [theirs]
        let answer = Task { () -> Result<R, PeerError> in
            defer { whenDone() }
            do throws(PeerError) {
                return .success(try await lane.run { client throws(ControlClientError) in
                    try client.call(call, params: final, descriptors: descriptors, sent: { theirs.close() }, onEvent: onEvent)
                })
            } catch {
                theirs.close()
                return .failure(error)
            }
        }
        return (mine, answer)
    }
}
