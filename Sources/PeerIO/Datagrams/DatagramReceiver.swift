import FoundationEssentials
import Glibc
import PeerCore
import PeerSystem

/// One client's `datagrams` socket (docs/control-protocol.md,
/// "Datagrams"): a `SOCK_SEQPACKET` socket on which each record is one
/// datagram (``DatagramRecord``). The client writes datagrams to send;
/// the daemon writes the datagrams of the client's app that arrive.
///
/// Writing to the client never waits: a record its full socket does not
/// take is lost, counted, and said in the next record's `lost`. So a slow
/// client loses datagrams; it never holds anything back, never grows
/// the daemon's memory, and is never dropped for it.
@MainActor
final class DatagramReceiver {
    /// The app whose datagrams it takes (and sends).
    let app: AppName
    /// What went through it.
    private(set) var result = DatagramsResult()
    /// Lost since the last record written.
    private var lostSinceLast: UInt64 = 0
    private var channel: PollChannel!
    private let answer: @MainActor (ControlReply) -> Void
    /// Sends one record the client wrote; true when it went (given at init).
    private let sendRecord: @MainActor (UnsafeRawBufferPointer, AppName) -> Bool
    /// Told once it is over (given at init).
    private let onFinished: @MainActor (DatagramReceiver) -> Void
    /// Whether it is over.
    private(set) var finished = false
    /// One record read at a time; a longer one is cut, and refused.
    private let readBuffer = UnsafeMutableRawBufferPointer.allocate(byteCount: DatagramRecord.maxRecord + 1, alignment: 16)

    /// The most records read from the client at one wake-up, so the
    /// sockets of peers and other clients get their turn.
    static let readBatch = 256

    /// Takes `descriptor` (non-blocking from here on) for `app`.
    init(descriptor: FileDescriptor, app: AppName, answer: @escaping @MainActor (ControlReply) -> Void,
         sendRecord: @escaping @MainActor (UnsafeRawBufferPointer, AppName) -> Bool,
         onFinished: @escaping @MainActor (DatagramReceiver) -> Void) {
        self.app = app
        self.answer = answer
        self.sendRecord = sendRecord
        self.onFinished = onFinished
        channel = PollChannel(descriptor: descriptor, onReadable: { [weak self] in self?.readable() }, onWritable: {})
    }

    isolated deinit { readBuffer.deallocate() }

    /// Whether `descriptor` is a `SOCK_SEQPACKET` socket (one record, one datagram).
    static func isSeqPacket(_ descriptor: FileDescriptor) -> Bool {
        var type: Int32 = 0
        var length = socklen_t(MemoryLayout<Int32>.size)
        return getsockopt(descriptor.rawValue, SOL_SOCKET, SO_TYPE, &type, &length) == 0 && type == Int32(SOCK_SEQPACKET.rawValue)
    }

    /// Writes one datagram from `peer` (the record's header goes in the
    /// first ``DatagramRecord/receiveHeader`` bytes of `record`, which the
    /// caller left free). False when the client's socket was full: lost.
    func deliver(_ record: UnsafeMutableRawBufferPointer, from peer: UUID) -> Bool {
        guard !finished else { return false }
        DatagramRecord.writeReceived(from: peer, lost: lostSinceLast, into: record)
        let written = send(channel.descriptor.rawValue, record.baseAddress, record.count, Int32(MSG_DONTWAIT) | Int32(MSG_NOSIGNAL))
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

    /// Reads the client's records: each is a datagram to send.
    private func readable() {
        for _ in 0..<Self.readBatch {
            let count = recv(channel.descriptor.rawValue, readBuffer.baseAddress, readBuffer.count, Int32(MSG_DONTWAIT))
            if count < 0 {
                if errno == EINTR { continue }
                if errno != EAGAIN, errno != EWOULDBLOCK { finish() }
                return
            }
            // End of stream: the client closed its end.
            guard count > 0 else { return finish() }
            let sent = count <= DatagramRecord.maxRecord && sendRecord(UnsafeRawBufferPointer(rebasing: readBuffer[0..<count]), app)
            if sent { result.sent += 1 } else { result.refused += 1 }
        }
    }

    /// Ends it: the descriptor is closed and the request answered.
    func finish() {
        guard !finished else { return }
        finished = true
        channel.close()
        answer(.answer(.datagrams, result))
        onFinished(self)
    }
}
