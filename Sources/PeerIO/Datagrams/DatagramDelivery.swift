import FoundationEssentials
import PeerCore
import PeerSystem
import PeerProtocol

/// The datagrams opened in one turn of the ``DatagramEngine``'s queue,
/// handed to the clients of their app: each client's records go in one
/// `sendmmsg` (issue 26: a system call per datagram held the rate at
/// 125,000 a second). What a client's full socket does not take is lost
/// for it and counted (``DatagramReceiver``); a datagram no client of its
/// app takes is counted as `noReceiver`.
///
/// It lives on the engine's queue alone. The bytes it is given are read
/// at the next ``flush(to:)``, which must come before they are reused.
final class DatagramDelivery {
    /// Records written to one client a call, at most.
    static let capacity = 32

    private struct Pending {
        let data: UnsafeRawBufferPointer
        let app: AppName
        let link: DatagramLink
    }

    private let batch = MessageBatch(capacity: DatagramDelivery.capacity, slotSize: DatagramRecord.maxRecord)
    private var pending: [Pending] = []
    /// How many clients took part in each pending datagram's delivery.
    private var audience: [Int] = []
    /// The pending datagrams in the batch being filled for one client.
    private var chunk: [Int] = []

    /// An empty delivery.
    init() {
        pending.reserveCapacity(Self.capacity)
        audience.reserveCapacity(Self.capacity)
        chunk.reserveCapacity(Self.capacity)
    }

    /// Queues `data` of `app` from `link` for the next ``flush(to:)``; a
    /// datagram the link's peer may not deliver is counted as `noReceiver` now.
    func add(_ data: UnsafeRawBufferPointer, app: AppName, on link: DatagramLink) {
        guard link.audience.admits(app) else { return link.counters.drop(.noReceiver) }
        pending.append(Pending(data: data, app: app, link: link))
        audience.append(0)
    }

    /// Writes every pending datagram to each of `receivers` of its app.
    func flush(to receivers: some Sequence<DatagramReceiver>, in engine: isolated DatagramEngine) {
        guard !pending.isEmpty else { return }
        for receiver in receivers where !receiver.finished {
            for index in pending.indices where pending[index].app == receiver.app {
                audience[index] += 1
                let entry = pending[index]
                let slot = batch.slot(chunk.count)
                DatagramRecord.writeReceived(from: entry.link.audience.peerBytes, lost: 0, into: slot)
                if !entry.data.isEmpty {
                    UnsafeMutableRawBufferPointer(rebasing: slot[DatagramRecord.receiveHeader...]).copyMemory(from: entry.data)
                }
                batch.prepare(chunk.count, length: DatagramRecord.receiveHeader + entry.data.count, to: nil)
                chunk.append(index)
                if chunk.count == Self.capacity { write(to: receiver, in: engine) }
            }
            if !chunk.isEmpty { write(to: receiver, in: engine) }
        }
        for index in pending.indices where audience[index] == 0 { pending[index].link.counters.drop(.noReceiver) }
        pending.removeAll(keepingCapacity: true)
        audience.removeAll(keepingCapacity: true)
    }

    /// Writes the chunk's records to `receiver`; those it did not take are lost for it.
    private func write(to receiver: DatagramReceiver, in engine: isolated DatagramEngine) {
        let delivered = receiver.deliver(batch, count: chunk.count, in: engine)
        for index in chunk[delivered...] { pending[index].link.counters.drop(.slowReceiver) }
        chunk.removeAll(keepingCapacity: true)
    }

    /// Hands the slots' pages back once idle (``MessageBatch/releaseIfIdle()``).
    func releaseIfIdle() { batch.releaseIfIdle() }
}
