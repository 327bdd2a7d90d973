import Dispatch
import FoundationEssentials
import Glibc
import PeerCore
import PeerSystem

/// One client's `datagrams` socket (docs/control-protocol.md,
/// "Datagrams"): a `SOCK_SEQPACKET` socket on which each record is one
/// datagram (``DatagramRecord``). The client writes datagrams to send;
/// the daemon writes the datagrams of the client's app that arrive.
/// It lives on the ``DatagramEngine``'s queue: its reads are that queue's
/// read source, so a busy main actor never delays a datagram.
/// `@unchecked Sendable` is safe: every use is on that one serial queue.
///
/// Writing to the client never waits: a record its full socket does not
/// take is lost, counted, and said in the next record's `lost`. So a slow
/// client loses datagrams; it never holds anything back, never grows
/// the daemon's memory, and is never dropped for it.
final class DatagramReceiver: @unchecked Sendable {
    /// The app whose datagrams it takes (and sends).
    let app: AppName
    /// What went through it.
    private(set) var result = DatagramsResult()
    /// Lost since the last record written.
    private var lostSinceLast: UInt64 = 0
    private let descriptor: FileDescriptor
    private var source: (any DispatchSourceRead)?
    private let answer: @MainActor (ControlReply) -> Void
    /// Sends one record the client wrote; true when it went (given at init).
    private let sendRecord: (UnsafeRawBufferPointer, AppName) -> Bool
    /// Told once it is over (given at init).
    private let onFinished: (DatagramReceiver) -> Void
    /// Whether it is over.
    private(set) var finished = false
    /// The engine's queue, which reads it.
    private let queue: DispatchQueue
    /// Whether the last read took a whole batch (more may wait).
    private var batchFull = false
    /// One record read at a time; a longer one is cut, and refused.
    private let readBuffer = UnsafeMutableRawBufferPointer.allocate(byteCount: DatagramRecord.maxRecord + 1, alignment: 16)

    /// The most records read from the client at one wake-up, so the
    /// peers' datagrams and other clients get their turn.
    static let readBatch = 256

    /// Takes `descriptor` for `app`, read on `queue` (the engine's).
    init(descriptor: FileDescriptor, app: AppName, queue: DispatchQueue, answer: @escaping @MainActor (ControlReply) -> Void,
         sendRecord: @escaping (UnsafeRawBufferPointer, AppName) -> Bool, onFinished: @escaping (DatagramReceiver) -> Void) {
        self.app = app
        self.descriptor = descriptor
        self.answer = answer
        self.sendRecord = sendRecord
        self.onFinished = onFinished
        self.queue = queue
        let source = DispatchSource.makeReadSource(fileDescriptor: descriptor.rawValue, queue: queue)
        self.source = source
        source.setEventHandler { [weak self] in self?.readable() }
        source.resume()
    }

    deinit { readBuffer.deallocate() }

    /// Whether `descriptor` is a `SOCK_SEQPACKET` socket (one record, one datagram).
    static func isSeqPacket(_ descriptor: FileDescriptor) -> Bool {
        var type: Int32 = 0
        var length = socklen_t(MemoryLayout<Int32>.size)
        return getsockopt(descriptor.rawValue, SOL_SOCKET, SO_TYPE, &type, &length) == 0 && type == Int32(SOCK_SEQPACKET.rawValue)
    }

    /// Writes one datagram from `peer` (its 16 bytes; the record's header goes in the
    /// first ``DatagramRecord/receiveHeader`` bytes of `record`, which the
    /// caller left free). False when the client's socket was full: lost.
    func deliver(_ record: UnsafeMutableRawBufferPointer, from peer: [UInt8]) -> Bool {
        guard !finished else { return false }
        DatagramRecord.writeReceived(from: peer, lost: lostSinceLast, into: record)
        let written = send(descriptor.rawValue, record.baseAddress, record.count, Int32(MSG_DONTWAIT) | Int32(MSG_NOSIGNAL))
        guard written == record.count else {
            if written < 0, errno != EAGAIN, errno != EWOULDBLOCK, errno != ENOBUFS { finish() }
            lostSinceLast += 1
            result.lost += 1
            return false
        }
        lostSinceLast = 0
        result.received += 1
        return true
    }

    /// Reads the client's records: each is a datagram to send. A full
    /// batch goes on in a later turn of the queue (a read source fires on
    /// new data, not on data left unread, so it must not wait for one).
    private func readable() {
        // A later turn queued before the end finds the descriptor closed.
        guard !finished else { return }
        defer { if !finished, batchFull { queue.async { [weak self] in self?.readable() } } }
        batchFull = false
        for _ in 0..<Self.readBatch {
            let count = recv(descriptor.rawValue, readBuffer.baseAddress, readBuffer.count, Int32(MSG_DONTWAIT))
            if count < 0 {
                if errno == EINTR { continue }
                if errno != EAGAIN, errno != EWOULDBLOCK { finish() }
                return
            }
            // End of stream: the client closed its end (records are never empty).
            guard count > 0 else { return finish() }
            let sent = count <= DatagramRecord.maxRecord && sendRecord(UnsafeRawBufferPointer(rebasing: readBuffer[0..<count]), app)
            if sent { result.sent += 1 } else { result.refused += 1 }
        }
        batchFull = true
    }

    /// Ends it: the descriptor is closed and the request answered (on the
    /// main actor, which owns the control connection).
    func finish() {
        guard !finished else { return }
        finished = true
        let descriptor = descriptor
        source?.setCancelHandler { descriptor.close() }
        source?.cancel()
        source = nil
        let (answer, result) = (answer, result)
        DispatchQueue.main.async { MainActor.assumeIsolated { answer(.answer(.datagrams, result)) } }
        onFinished(self)
    }
}
