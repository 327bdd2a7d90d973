import FoundationEssentials
import Glibc
import PeerCore
import PeerSystem
import PeerProtocol

/// The datagrams sealed in one turn of the ``DatagramEngine``'s queue,
/// sent together in one `sendmmsg` (issue 26: a system call per datagram
/// held the rate at 125,000 a second). Each is sealed in its own slot,
/// with the next counter of its link, and either goes in this turn's call
/// or is dropped in it: nothing waits for a later turn, so "sent now or
/// dropped now" holds. The counts are the link's: sent once the kernel
/// took it, or the drop's reason.
///
/// It lives on the engine's queue alone.
final class DatagramOutbox {
    /// Datagrams sent a call, at most; a turn with more sends the first
    /// ones when the batch fills.
    static let capacity = 32
    /// A slot: the largest datagram (its header, the largest body, the tag), rounded up.
    static let slotSize = 1_280

    private let socket: UDPSocket
    private let batch = MessageBatch(capacity: DatagramOutbox.capacity, slotSize: DatagramOutbox.slotSize)
    /// Each prepared slot's link, and whether it is counted (a probe is not:
    /// the counts are the clients' data).
    private var owners: [(link: DatagramLink, counted: Bool)] = []
    /// Counted datagrams sent by flushes that filled the batch, since the last ``flush()``.
    private var sentEarlier = 0
    /// Why the last datagram dropped since the last ``flush()`` was dropped.
    private var lastDrop: DatagramDrop?
    /// Whether datagrams go down the stack as trains (UDP GSO): until the
    /// kernel or the device says it cannot segment them.
    private(set) var trains = true

    /// An outbox sending on `socket`.
    init(socket: UDPSocket) {
        self.socket = socket
        owners.reserveCapacity(Self.capacity)
    }

    /// Seals a datagram for `link` to `address` and prepares it: `body`
    /// writes the plaintext body into the buffer it is given (its room is
    /// the largest body) and says its length. Nil when it is prepared (its
    /// fate comes with ``flush()``), or why it was dropped now; a counted
    /// drop is counted.
    func add(on link: DatagramLink, to address: DatagramAddress?, counted: Bool, body: (UnsafeMutableRawBufferPointer) -> Int) -> DatagramDrop? {
        guard let address, let remoteIndex = link.remoteIndex else { return dropped(.noPath, on: link, counted: counted) }
        // The last counter is never used: its nonce is Noise's reserved one.
        guard link.nextCounter < UInt64.max - 1 else { return dropped(.sendFailed, on: link, counted: counted) }
        if owners.count == Self.capacity { sentEarlier += send() }
        let index = owners.count
        let slot = batch.slot(index)
        let count = body(UnsafeMutableRawBufferPointer(rebasing: slot[DatagramHeader.length..<(DatagramHeader.length + DatagramHeader.maxPayload)]))
        let counter = link.nextCounter
        link.nextCounter += 1
        DatagramHeader(receiverIndex: remoteIndex, counter: counter).write(into: slot)
        let length = DatagramHeader.length + count + DatagramHeader.tagLength
        link.sendCipher.seal(UnsafeMutableRawBufferPointer(rebasing: slot[0..<length]), counter: counter, count: count)
        batch.prepare(index, length: length, to: address)
        owners.append((link, counted))
        return nil
    }

    /// Sends what was prepared: how many counted datagrams the kernel took
    /// since the last flush, and the reason the last one dropped was
    /// dropped, if one was. Each one's fate is counted on its link.
    @discardableResult
    func flush() -> (sent: Int, lastDrop: DatagramDrop?) {
        let sent = sentEarlier + send()
        sentEarlier = 0
        defer { lastDrop = nil }
        return (sent, lastDrop)
    }

    /// Sends the prepared slots, as many calls as the kernel's answers
    /// need: a full buffer drops the rest; a failure drops the one it names.
    private func send() -> Int {
        var next = 0, sent = 0
        while next < owners.count {
            switch socket.send(batch, next..<owners.count, trains: trains) {
            case .sent(let count):
                for (link, counted) in owners[next..<(next + count)] where counted {
                    link.counters.sent += 1
                    sent += 1
                }
                next += count
            case .wouldBlock:
                // The socket's buffer is full: the rest would block as well.
                for (link, counted) in owners[next...] where counted { link.counters.drop(.wouldBlock) }
                lastDrop = .wouldBlock
                next = owners.count
            case .failed(let code) where trains && (code == EINVAL || code == EIO || code == EOPNOTSUPP):
                // No segmentation here (an old kernel, a device without
                // checksum offload): the same datagrams go singly from now on.
                trains = false
            case .failed:
                if owners[next].counted { owners[next].link.counters.drop(.sendFailed) }
                lastDrop = .sendFailed
                next += 1
            }
        }
        owners.removeAll(keepingCapacity: true)
        return sent
    }

    private func dropped(_ reason: DatagramDrop, on link: DatagramLink, counted: Bool) -> DatagramDrop {
        if counted { link.counters.drop(reason) }
        return reason
    }

    /// Hands the slots' pages back once idle (``MessageBatch/releaseIfIdle()``).
    func releaseIfIdle() { batch.releaseIfIdle() }
}
