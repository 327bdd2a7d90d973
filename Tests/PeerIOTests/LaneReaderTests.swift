import Glibc
import PeerCore
import PeerSystem
import XCTest
@testable import PeerIO

/// The lane's reader (issue 44, point 3) on a socket pair: frames cut
/// across reads and begun in the handshake's leftover bytes arrive opened
/// and in order; a frame that does not open ends the lane as corrupt; the
/// peer's close ends it as a broken connection, not a protocol error.
@MainActor
final class LaneReaderTests: XCTestCase {
    private let key = [UInt8](repeating: 0x42, count: 32)

    /// What the reader delivered, on the main actor.
    private final class Log {
        var plaintexts: [[UInt8]] = []
        var ended: (String, corrupt: Bool)?
    }

    private func frame(_ plaintext: [UInt8], _ sealer: inout NoiseCipherState) throws -> [UInt8] {
        WireCodec.frame(try sealer.encrypt(ad: [], plaintext))
    }

    private func pair() throws -> (reading: FileDescriptor, writing: FileDescriptor) {
        var fds: [Int32] = [0, 0]
        XCTAssertEqual(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &fds), 0)
        let reading = FileDescriptor(rawValue: fds[0])
        try reading.setNonBlocking()
        return (reading, FileDescriptor(rawValue: fds[1]))
    }

    private let poller = LanePoller()

    private func start(_ socket: FileDescriptor, unread: [UInt8], log: Log) throws -> LaneReader {
        var reader: LaneReader?
        reader = try LaneReader(socket: socket, cipher: NoiseCipherState(key: key), unread: unread, poller: poller) { report in
            switch report {
            case .batch(let batch):
                batch.withBytes { raw in for range in batch.frames { log.plaintexts.append(Array(raw[range])) } }
                reader?.done(with: batch)
            case .ended(let why, let corrupt):
                log.ended = (why, corrupt)
            }
        }
        return reader!
    }

    private func waitFor(_ condition: () -> Bool) async {
        for _ in 0..<500 where !condition() { try? await Task.sleep(nanoseconds: 10_000_000) }
    }

    func testFramesAcrossReadsArriveOpenedAndInOrderThenABadOneIsCorrupt() async throws {
        let (reading, writing) = try pair()
        defer { writing.close(); reading.close() }
        var sealer = NoiseCipherState(key: key)
        let plaintexts = [Array("first".utf8), [UInt8](repeating: 7, count: 60_000), Array("third".utf8)]
        var bytes: [UInt8] = []
        for plaintext in plaintexts { bytes += try frame(plaintext, &sealer) }
        let log = Log()
        // The handshake's read took the first 5 bytes already.
        let reader = try start(reading, unread: Array(bytes.prefix(5)), log: log)
        defer { reader.stop() }
        let cut = 5 + 30_000
        _ = bytes[5..<cut].withUnsafeBytes { write(writing.rawValue, $0.baseAddress, $0.count) }
        await waitFor { log.plaintexts.count >= 1 }
        _ = bytes[cut...].withUnsafeBytes { write(writing.rawValue, $0.baseAddress, $0.count) }
        await waitFor { log.plaintexts.count >= 3 }
        XCTAssertEqual(log.plaintexts, plaintexts)
        XCTAssertNil(log.ended)
        // A frame sealed under another key does not open.
        var stranger = NoiseCipherState(key: [UInt8](repeating: 1, count: 32))
        let bad = try frame(Array("forged".utf8), &stranger)
        _ = bad.withUnsafeBytes { write(writing.rawValue, $0.baseAddress, $0.count) }
        await waitFor { log.ended != nil }
        XCTAssertEqual(log.ended?.corrupt, true, "\(String(describing: log.ended))")
        XCTAssertEqual(log.plaintexts.count, 3, "nothing of the bad frame is delivered")
    }

    func testThePeersCloseEndsTheLaneAsABrokenConnection() async throws {
        let (reading, writing) = try pair()
        defer { reading.close() }
        let log = Log()
        let reader = try start(reading, unread: [], log: log)
        defer { reader.stop() }
        writing.close()
        await waitFor { log.ended != nil }
        XCTAssertEqual(log.ended?.corrupt, false)
        XCTAssertEqual(log.ended?.0, "the connection was closed")
    }
}
