import Dispatch
import FoundationEssentials
import Glibc
import PeerCore
import PeerSystem
import PeerProtocol

/// One client's `datagrams` socket (docs/control-protocol.md,
/// "Datagrams"): a `SOCK_SEQPACKET` socket on which each record is one
/// datagram (``DatagramRecord``). The client writes datagrams to send;
/// the daemon writes the datagrams of the client's app that arrive.
/// It lives on the ``DatagramEngine``'s queue: its socket is watched by the
/// engine's ``QueuePoller``, which reports on that queue, so a busy main
/// actor never delays a datagram. It is the engine's, inside the engine's
/// isolation (an actor on that queue), and is never sent elsewhere.
///
/// Writing to the client never waits: a record its full socket does not
/// take is lost, counted, and said in the next record's `lost`. So a slow
/// client loses datagrams; it never holds anything back, never grows
/// the daemon's memory, and is never dropped for it.
final class DatagramReceiver {
    /// The app whose datagrams it takes (and sends).
    let app: AppName
    /// What went through it.
    private(set) var result = DatagramsResult()
    /// Lost since the last record written.
    private var lostSinceLast: UInt64 = 0
    private let descriptor: FileDescriptor
    /// Its token with the poller.
    let token: UInt64
    /// Watches it (the engine's).
    private let poller: QueuePoller
    private let answer: @MainActor (ControlReply) -> Void
    /// Whether it is over.
    private(set) var finished = false
    /// Where records are read, many a call: the engine's, shared by every
    /// client (all read on its one queue, each batch handled before the next).
    private let records: MessageBatch

    /// The most records read from the client at one wake-up, so the
    /// peers' datagrams and other clients get their turn.
    static let readBatch = 1_024

    /// Takes `descriptor` for `app`, watched by `poller` under `token`
    /// (already), read into `records`.
    init(descriptor: FileDescriptor, token: UInt64, app: AppName, poller: QueuePoller, records: MessageBatch,
         answer: @escaping @MainActor (ControlReply) -> Void) {
        self.app = app
        self.descriptor = descriptor
        self.token = token
        self.poller = poller
        self.answer = answer
        self.records = records
    }

    /// Whether `descriptor` is a `SOCK_SEQPACKET` socket (one record, one datagram).
    static func isSeqPacket(_ descriptor: FileDescriptor) -> Bool {
        var type: Int32 = 0
        var length = socklen_t(MemoryLayout<Int32>.size)
        return getsockopt(descriptor.rawValue, SOL_SOCKET, SO_TYPE, &type, &length) == 0 && type == Int32(SOCK_SEQPACKET.rawValue)
    }

    /// Writes `batch`'s first `count` records (prepared, each a datagram
    /// that arrived), their first one told what was lost before it: how
    /// many the client's socket took. The rest are lost for it, and said
    /// in the next record written.
    func deliver(_ batch: MessageBatch, count: Int, in engine: isolated DatagramEngine) -> Int {
        guard !finished, count > 0 else { return 0 }
        DatagramRecord.writeLost(lostSinceLast, into: batch.slot(0))
        var delivered = 0
        switch batch.send(0..<count, on: descriptor) {
        case .sent(let taken): delivered = taken
        case .wouldBlock: break
        case .failed: finish(in: engine)
        }
        let lost = count - delivered
        lostSinceLast = delivered > 0 ? UInt64(lost) : lostSinceLast + UInt64(lost)
        result.received += UInt64(delivered)
        result.lost += UInt64(lost)
        return delivered
    }

    /// Reads the client's records, many a call, up to ``readBatch``: each
    /// is a datagram to send. Then its socket is watched again: what is
    /// left reports again, after the others had their turn. The `engine`
    /// sends them (the receiver runs inside its isolation).
    func readable(in engine: isolated DatagramEngine) {
        guard !finished else { return }
        var read = 0
        reading: while read < Self.readBatch {
            let count: Int
            switch records.receive(from: descriptor, names: false, control: false) {
            case .received(let taken): count = taken
            case .none: break reading
            case .failed: return finish(in: engine)
            }
            // A record of no bytes is the end: the client closed its end (records are never empty).
            let ended = (0..<count).first { records.length($0) == 0 }
            let (sent, refused) = engine.sendRecords(records, count: ended ?? count, app: app)
            result.sent += UInt64(sent)
            result.refused += UInt64(refused)
            if ended != nil || count == 0 { return finish(in: engine) }
            // A batch not full took what waited.
            guard count == records.capacity else { break }
            read += count
        }
        do { try poller.rearm(descriptor, token: token) } catch { finish(in: engine) }
    }

    /// Ends it: the descriptor is no longer watched and is closed now, and
    /// the request answered (on the main actor, which owns the control
    /// connection); the `engine` forgets it.
    func finish(in engine: isolated DatagramEngine) {
        guard !finished else { return }
        finished = true
        poller.forget(descriptor)
        descriptor.close()
        let (answer, result) = (answer, result)
        DispatchQueue.main.async { MainActor.assumeIsolated { answer(.answer(.datagrams, result)) } }
        engine.receiverFinished(token)
    }
}
