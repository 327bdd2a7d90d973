import XCTest
import Glibc
import PeerSystem
import Foundation

/// `MessageBatch` (PeerSystem): many messages a `sendmmsg` and a
/// `recvmmsg`, on a `SOCK_SEQPACKET` pair as the datagram path's clients use.
final class MessageBatchTests: XCTestCase {
    private func seqPacketPair() -> (FileDescriptor, FileDescriptor) {
        var pair: [Int32] = [0, 0]
        XCTAssertEqual(socketpair(AF_UNIX, Int32(SOCK_SEQPACKET.rawValue), 0, &pair), 0)
        return (FileDescriptor(rawValue: pair[0]), FileDescriptor(rawValue: pair[1]))
    }

    private func fill(_ batch: MessageBatch, _ messages: [[UInt8]]) {
        for (index, message) in messages.enumerated() {
            message.withUnsafeBytes { batch.slot(index).copyMemory(from: $0) }
            batch.prepare(index, length: message.count, to: nil)
        }
    }

    func testRecordsCrossManyACallEachWhole() {
        let (a, b) = seqPacketPair()
        defer { a.close(); b.close() }
        let out = MessageBatch(capacity: 8, slotSize: 64), into = MessageBatch(capacity: 8, slotSize: 64)
        let messages: [[UInt8]] = [[1], [2, 2], Array(repeating: 3, count: 64)]
        fill(out, messages)
        XCTAssertEqual(out.send(0..<3, on: a), .sent(3))
        XCTAssertEqual(into.receive(from: b, names: false, control: false), .received(3))
        for (index, message) in messages.enumerated() {
            XCTAssertEqual(into.length(index), message.count)
            XCTAssertEqual(Array(into.slot(index)[0..<message.count]), message)
        }
        XCTAssertEqual(into.receive(from: b, names: false, control: false), .none, "nothing waits: no wait either")
    }

    func testALongerRecordIsCutAndSaysItsWholeLength() {
        let (a, b) = seqPacketPair()
        defer { a.close(); b.close() }
        let out = MessageBatch(capacity: 1, slotSize: 100), into = MessageBatch(capacity: 1, slotSize: 10)
        fill(out, [Array(repeating: 7, count: 100)])
        XCTAssertEqual(out.send(0..<1, on: a), .sent(1))
        XCTAssertEqual(into.receive(from: b, names: false, control: false), .received(1))
        XCTAssertEqual(into.length(0), 100, "the length past the slot says it was cut")
    }

    func testTheEndIsARecordOfNoBytes() {
        let (a, b) = seqPacketPair()
        defer { b.close() }
        let out = MessageBatch(capacity: 1, slotSize: 8), into = MessageBatch(capacity: 4, slotSize: 8)
        fill(out, [[9, 9]])
        XCTAssertEqual(out.send(0..<1, on: a), .sent(1))
        a.close()
        guard case .received(let count) = into.receive(from: b, names: false, control: false) else { return XCTFail("the record and the end") }
        XCTAssertGreaterThanOrEqual(count, 2)
        XCTAssertEqual(into.length(0), 2)
        XCTAssertEqual(into.length(1), 0)
    }

    func testAFullSocketTakesPartOfABatchThenNone() {
        let (a, b) = seqPacketPair()
        defer { a.close(); b.close() }
        var small: Int32 = 4_096
        XCTAssertEqual(setsockopt(a.rawValue, SOL_SOCKET, SO_SNDBUF, &small, socklen_t(MemoryLayout<Int32>.size)), 0)
        let out = MessageBatch(capacity: 64, slotSize: 1_000)
        fill(out, Array(repeating: Array(repeating: 1, count: 1_000), count: 64))
        guard case .sent(let taken) = out.send(0..<64, on: a) else { return XCTFail("some fit") }
        XCTAssertLessThan(taken, 64, "a 4 KiB buffer holds fewer than 64 records of 1,000 bytes")
        XCTAssertEqual(out.send(taken..<64, on: a), .wouldBlock)
        XCTAssertEqual(out.send(0..<0, on: a), .sent(0))
    }

    func testReleaseHandsThePagesBackZeroed() {
        let batch = MessageBatch(capacity: 4, slotSize: 4_096)
        batch.slot(2).storeBytes(of: 0xAB, toByteOffset: 0, as: UInt8.self)
        batch.release()
        XCTAssertEqual(batch.slot(2)[0], 0)
        // Once used, a tick keeps it; a tick with no use between hands it back.
        batch.prepare(0, length: 1, to: nil)
        batch.slot(1)[0] = 0xCD
        batch.releaseIfIdle()
        XCTAssertEqual(batch.slot(1)[0], 0xCD, "used since the last tick: kept")
        batch.releaseIfIdle()
        XCTAssertEqual(batch.slot(1)[0], 0, "a whole period unused: handed back")
    }
}

/// UDP trains on loopback: datagrams of one size to one address go down
/// the stack as one `UDP_SEGMENT` message and come up whole to a socket
/// with `UDP_GRO` (``UDPSocket``), split there at their segment size: the
/// same datagrams, in order, either way.
final class UDPTrainTests: XCTestCase {
    func testATrainArrivesAsTheSameDatagramsInOrder() throws {
        let receiver = try UDPSocket(port: 0)
        defer { receiver.close() }
        let sender = try UDPSocket(port: 0)
        defer { sender.close() }
        var v4 = sockaddr_in()
        v4.sin_family = sa_family_t(AF_INET)
        v4.sin_port = receiver.port.bigEndian
        v4.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        var storage = sockaddr_storage()
        withUnsafeMutableBytes(of: &storage) { $0.storeBytes(of: v4, as: sockaddr_in.self) }
        var address = DatagramAddress(storage: storage, length: socklen_t(MemoryLayout<sockaddr_in>.size))
        if sender.dualStack {
            // A dual-stack socket names IPv4 peers in their mapped form.
            var v6 = sockaddr_in6()
            v6.sin6_family = sa_family_t(AF_INET6)
            v6.sin6_port = receiver.port.bigEndian
            withUnsafeMutableBytes(of: &v6.sin6_addr) { raw in
                raw[10] = 0xFF
                raw[11] = 0xFF
                raw[12] = 127
                raw[15] = 1
            }
            var mapped = sockaddr_storage()
            withUnsafeMutableBytes(of: &mapped) { $0.storeBytes(of: v6, as: sockaddr_in6.self) }
            address = DatagramAddress(storage: mapped, length: socklen_t(MemoryLayout<sockaddr_in6>.size))
        }
        // Five of 100 bytes and a shorter last one: one train.
        let lengths = [100, 100, 100, 100, 100, 40]
        let out = MessageBatch(capacity: 8, slotSize: 128)
        for (index, length) in lengths.enumerated() {
            let slot = out.slot(index)
            for offset in 0..<length { slot[offset] = UInt8(index) }
            out.prepare(index, length: length, to: address)
        }
        XCTAssertEqual(sender.send(out, 0..<lengths.count, trains: true), .sent(lengths.count), "a train goes whole")
        XCTAssertEqual(sender.send(out, 0..<2, trains: false), .sent(2), "and singly, as before")

        var watch = pollfd(fd: receiver.descriptor.rawValue, events: Int16(POLLIN), revents: 0)
        XCTAssertEqual(poll(&watch, 1, 2_000), 1)
        let into = MessageBatch(capacity: 16, slotSize: 65_536)
        var datagrams: [[UInt8]] = []
        let deadline = Date().addingTimeInterval(2)
        while datagrams.count < lengths.count + 2, Date() < deadline {
            let (count, _) = receiver.receive(into: into)
            for slot in 0..<count {
                let length = into.length(slot)
                let segment = UDPSocket.segmentSize(of: slot, in: into) ?? length
                var offset = 0
                repeat {
                    let end = min(offset + segment, length)
                    datagrams.append(Array(into.slot(slot)[offset..<end]))
                    offset = end
                } while offset < length
            }
            if count == 0 { usleep(1_000) }
        }
        XCTAssertEqual(datagrams.map(\.count), lengths + [100, 100], "each datagram whole, in order")
        XCTAssertEqual(datagrams.map { $0.first ?? 0xFF }, [0, 1, 2, 3, 4, 5, 0, 1])
        XCTAssertTrue(datagrams.allSatisfy { Set($0).count == 1 }, "no datagram carries another's bytes")
    }
}
