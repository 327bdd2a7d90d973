import Dispatch
import Synchronization
import XCTest
import PeerCore
@testable import PeerIO

/// A datagram's seal (docs/protocol.md §11, "Worked example"): the bytes
/// were computed apart from peerd (Python's `cryptography`), so another
/// implementation that follows the document gets them too.
final class DatagramCipherTests: XCTestCase {
    private let k1 = "8729bb96c34c866f65a52850927173b2854347a7377a9024e76e66d27bf99ec7"

    private func cipher() -> DatagramCipher {
        var key = Hex.decode(k1)!
        let made = DatagramCipher(key: &key)
        XCTAssertTrue(key.isEmpty, "the caller's copy of the key is wiped and let go")
        return made
    }

    private func seal(_ body: [UInt8], index: UInt32, counter: UInt64) -> [UInt8] {
        var datagram = DatagramHeader(receiverIndex: index, counter: counter).encoded + body + [UInt8](repeating: 0, count: 16)
        datagram.withUnsafeMutableBytes { cipher().seal($0, counter: counter, count: body.count) }
        return datagram
    }

    func testTheWorkedExamplesBytes() {
        XCTAssertEqual(Hex.encode(seal([0x01, 0x00, 0x68, 0x69], index: 0x0A0B_0C0D, counter: 5)),
                       "010a0b0c0d000000000000000557e9f267d1f840640dbca5851182be0994527deb")
        XCTAssertEqual(Hex.encode(seal([0x01, 0x04] + Array("chat".utf8) + [0x68, 0x69], index: 0x0A0B_0C0D, counter: 5)),
                       "010a0b0c0d000000000000000557edf966660268e80f08aa8ebd2dc29da1d756e2302feeed")
        XCTAssertEqual(Hex.encode(seal(DatagramBody.encodeProbe(1, reply: false), index: 0x0A0B_0C0D, counter: 0)),
                       "010a0b0c0d00000000000000009524dbcce5e21a611cc634054f7a7d78347eb054b68c3e8d29")
    }

    func testItOpensWhereItIsAndAnyChangedByteOrCounterFails() {
        let sealed = seal([0x01, 0x00, 0x68, 0x69], index: 0x0A0B_0C0D, counter: 5)
        let opener = cipher()
        var copy = sealed
        XCTAssertEqual(copy.withUnsafeMutableBytes { opener.open($0, counter: 5) }, 4)
        XCTAssertEqual(Array(copy[13..<17]), [0x01, 0x00, 0x68, 0x69])
        for index in [0, 4, 12, 13, sealed.count - 1] {
            var changed = sealed
            changed[index] ^= 0x01
            XCTAssertNil(changed.withUnsafeMutableBytes { opener.open($0, counter: 5) }, "byte \(index) changed: the header is authenticated too")
        }
        copy = sealed
        XCTAssertNil(copy.withUnsafeMutableBytes { opener.open($0, counter: 6) }, "another counter")
        var short = [UInt8](repeating: 0, count: 28)
        XCTAssertNil(short.withUnsafeMutableBytes { opener.open($0, counter: 0) })
    }

    /// Why its `@unchecked Sendable` holds (issue 43, point 2): the key
    /// never changes after init, so threads that seal and open with one
    /// cipher at once each get the bytes one thread alone gets.
    func testOneCipherSealsAndOpensOnManyThreadsAtOnce() {
        let shared = cipher()
        let expected = seal([0x01, 0x00, 0x68, 0x69], index: 0x0A0B_0C0D, counter: 5)
        let results = Mutex([Bool](repeating: false, count: 64))
        DispatchQueue.concurrentPerform(iterations: 64) { round in
            var ok = true
            for _ in 0..<200 {
                var datagram = DatagramHeader(receiverIndex: 0x0A0B_0C0D, counter: 5).encoded + [0x01, 0x00, 0x68, 0x69] + [UInt8](repeating: 0, count: 16)
                datagram.withUnsafeMutableBytes { shared.seal($0, counter: 5, count: 4) }
                ok = ok && datagram == expected
                ok = ok && datagram.withUnsafeMutableBytes { shared.open($0, counter: 5) } == 4
            }
            results.withLock { $0[round] = ok }
        }
        XCTAssertEqual(results.withLock { $0 }, [Bool](repeating: true, count: 64))
    }
}
