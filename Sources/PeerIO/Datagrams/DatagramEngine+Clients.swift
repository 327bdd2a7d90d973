import FoundationEssentials
import Glibc
import PeerCore
import PeerSystem
import PeerProtocol

/// The engine's side of its clients' `datagrams` sockets (on the queue,
/// in the engine's isolation): opening one, the records a client writes
/// sent to their peers, and forgetting one that ended.
extension DatagramEngine {
    /// Records a client of `app` wrote, read into `batch`'s first `count`
    /// slots, sent in one `sendmmsg`: how many went, and how many were
    /// refused (not a record, too long, no such peer or app, no path, or
    /// dropped by the socket).
    func sendRecords(_ batch: MessageBatch, count: Int, app: AppName) -> (sent: Int, refused: Int) {
        guard let outbox else { return (0, count) }
        for index in 0..<count {
            let length = batch.length(index)
            guard length <= DatagramRecord.maxRecord else { continue }
            queueRecord(UnsafeRawBufferPointer(rebasing: batch.slot(index)[0..<length]), app: app, in: outbox)
        }
        let sent = outbox.flush().sent
        return (sent, count - sent)
    }

    /// Prepares one record's datagram in `outbox`, when its peer, app and path allow.
    private func queueRecord(_ record: UnsafeRawBufferPointer, app: AppName, in outbox: DatagramOutbox) {
        guard let (peer, offset) = DatagramRecord.parseSend(record), record.count - offset <= DatagramBody.maxData(for: app),
              let index = byPeer[peer], let link = links[index], link.audience.admits(app) else { return }
        guard link.path.state == .up || link.path.state == .probing else {
            if link.path.state == .waiting { link.counters.drop(.noPath) }
            return
        }
        _ = addData(UnsafeRawBufferPointer(rebasing: record[offset...]), app: app, on: link, in: outbox)
    }

    // MARK: Clients (on the queue)

    /// A client's `datagrams` socket for `app`; its answer comes when it closes.
    func open(_ descriptor: FileDescriptor, app: AppName, answer: @escaping @MainActor (ControlReply) -> Void) -> ControlError? {
        guard receivers.count < Self.maxReceivers else {
            descriptor.close()
            return ControlError(.busy, "\(Self.maxReceivers) datagram sockets are open; try again later")
        }
        let token = nextToken
        nextToken += 1
        guard running, let poller else {
            descriptor.close()
            return ControlError(.unreachable, "this host's datagram path is not running; see peerctl status")
        }
        // Room for bursts a client is not scheduled for (a few milliseconds at
        // full rate): records wait in the kernel, charged to this socket, up to it.
        var room = Self.clientSocketBuffer
        _ = setsockopt(descriptor.rawValue, SOL_SOCKET, SO_SNDBUF, &room, socklen_t(MemoryLayout<Int32>.size))
        do { try poller.watch(descriptor, token: token) } catch {
            descriptor.close()
            return ControlError(.internal, "the datagram socket cannot be watched: \(error.description)")
        }
        receivers[token] = DatagramReceiver(descriptor: descriptor, token: token, app: app, poller: poller, records: records, answer: answer)
        return nil
    }

    /// A client's socket is over: the engine forgets its receiver.
    func receiverFinished(_ token: UInt64) { receivers[token] = nil }
}
