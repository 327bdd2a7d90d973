import Foundation
import PeerSystem
import Synchronization
import XCTest
@testable import PeerCore
@testable import PeerIO

/// The session's lane (issue 25, point 2): frames sealed there and frames
/// sealed in place share one nonce sequence, in the order they were
/// queued, so the receiver opens them in the order they reach the socket.
@MainActor
final class SealLaneTests: XCTestCase {
    private let key = [UInt8](repeating: 0x42, count: 32)

    /// A frame with room: 2 bytes of prefix, `plaintext`, 16 of tag.
    private func frame(_ plaintext: [UInt8]) -> [UInt8] { [0, 0] + plaintext + [UInt8](repeating: 0, count: 16) }

    /// Opens `sealed` (prefix, ciphertext, tag) with `cipher`.
    private func open(_ sealed: [UInt8], _ cipher: inout NoiseCipherState) throws -> [UInt8] {
        let length = Int(sealed[0]) << 8 | Int(sealed[1])
        XCTAssertEqual(length, sealed.count - 2, "the length prefix")
        var body = Array(sealed[2...])
        let count = try body.withUnsafeMutableBytes { try cipher.openInPlace($0) }
        return Array(body[0..<count])
    }


    func testFramesSealedOnTheLaneAndInPlaceOpenInTheOrderQueued() async throws {
        let lane = SealLane(cipher: NoiseCipherState(key: key))
        var first = frame(Array("in place".utf8))
        try lane.sealNow(&first, count: 8)
        var outcomes: [SealLane.Outcome] = []
        let big = [UInt8](repeating: 7, count: 60_000)
        lane.run(frame(Array("ready".utf8)), .ready(count: 5)) { outcomes.append($0) }
        lane.run([UInt8](repeating: 0xEE, count: 2 + big.count + 16), .fill({ room in
            room.copyBytes(from: big)
            return big.count
        })) { outcomes.append($0) }
        lane.run(frame([1, 2, 3]), .fill({ _ in nil })) { outcomes.append($0) }
        lane.run([], .fill({ room in room.isEmpty ? 0 : nil })) { outcomes.append($0) }
        lane.run([], .build({ Array("built".utf8) })) { outcomes.append($0) }
        lane.run([], .build({ nil })) { outcomes.append($0) }
        let arrived = try await eventually { outcomes.count == 6 }
        XCTAssertTrue(arrived, "outcomes: \(outcomes)")
        // Every job's outcome is back: the lane is idle, in place again.
        var last = frame(Array("after".utf8))
        try lane.sealNow(&last, count: 5)

        var receiver = NoiseCipherState(key: key)
        var opened = [try open(first, &receiver)]
        var kinds: [String] = []
        for outcome in outcomes {
            switch outcome {
            case .sealed(let sealed):
                kinds.append("sealed")
                opened.append(try open(sealed, &receiver))
            case .done: kinds.append("done")
            case .dropped: kinds.append("dropped")
            case .failed(let error): XCTFail("failed: \(error)")
            case .sent: XCTFail("a session's lane writes nothing itself")
            }
        }
        opened.append(try open(last, &receiver))
        XCTAssertEqual(kinds, ["sealed", "sealed", "dropped", "done", "sealed", "dropped"],
                       "a fill or build that says nil sends nothing; work alone is done")
        XCTAssertEqual(opened, [Array("in place".utf8), Array("ready".utf8), big, Array("built".utf8), Array("after".utf8)],
                       "one nonce sequence, in the order queued; nothing sent spends no nonce")
    }

    /// The lane's jobs run at the normal priority, not stepped back as
    /// the receiver's hashing and writing are (``BulkThread``): the stream
    /// waits on the lane, and at nice 5 a pipe ran 8 to 18% slower with
    /// the round trips beside it unchanged (issue 25).
    func testTheLaneDoesNotStepBack() async throws {
        let lane = SealLane(cipher: NoiseCipherState(key: key))
        let which = __priority_which_t(PRIO_PROCESS.rawValue)
        let seen = NiceSeen()
        var done = false
        lane.run([UInt8](repeating: 0, count: 2 + 64 + 16), .fill({ room in
            errno = 0
            let nice = getpriority(which, 0)
            seen.value.withLock { $0 = errno == 0 ? nice : nil }
            return room.count
        })) { _ in done = true }
        let arrived = try await eventually { done }
        XCTAssertTrue(arrived)
        let nice = seen.value.withLock { $0 }
        XCTAssertNotNil(nice, "getpriority answered")
        XCTAssertLessThan(nice ?? .max, BulkThread.nice, "a lane job runs below the bulk step's nice value")
    }

    /// The bytes are the cipher's, whichever thread sealed them: the same
    /// frames sealed one after another by a plain cipher state match.
    func testTheLaneChangesNoByteOnTheWire() async throws {
        let lane = SealLane(cipher: NoiseCipherState(key: key))
        var reference = NoiseCipherState(key: key)
        var outcomes: [[UInt8]] = []
        let plaintexts = [[UInt8](repeating: 1, count: 100), [UInt8](repeating: 2, count: 65_000), [UInt8](repeating: 3, count: 2000)]
        for plaintext in plaintexts {
            lane.run(frame(plaintext), .ready(count: plaintext.count)) { if case .sealed(let sealed) = $0 { outcomes.append(sealed) } }
        }
        let arrived = try await eventually { outcomes.count == plaintexts.count }
        XCTAssertTrue(arrived)
        for (plaintext, sealed) in zip(plaintexts, outcomes) {
            var expected = frame(plaintext)
            try reference.sealInPlace(&expected, offset: 2, count: plaintext.count)
            XCTAssertEqual(Array(sealed[2...]), Array(expected[2...]))
        }
    }

    /// A bulk lane's sealer writes each frame itself and reports to the
    /// main actor in groups (issue 44): every outcome still comes back, in
    /// order, the last even when no group is full, and the peer opens the
    /// frames in the order queued.
    func testABulkLanesOutcomesComeBackInGroupsAllOfThemInOrder() async throws {
        var fds: [Int32] = [0, 0]
        XCTAssertEqual(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &fds), 0)
        defer { close(fds[0]); close(fds[1]) }
        let lane = SealLane(cipher: NoiseCipherState(key: key), writer: try LaneSocketWriter(socket: FileDescriptor(rawValue: fds[0])))
        var order: [Int] = []
        let count = SealLane.reportEvery * 2 + 1
        for index in 0..<count {
            lane.run(frame([UInt8(index)]), .ready(count: 1)) { outcome in
                if case .sent = outcome { order.append(index) } else { XCTFail("\(outcome)") }
            }
        }
        let arrived = try await eventually { order.count == count }
        XCTAssertTrue(arrived, "outcomes: \(order)")
        XCTAssertEqual(order, Array(0..<count))
        var receiver = NoiseCipherState(key: key)
        var received = [UInt8](repeating: 0, count: count * 19)
        var got = 0
        while got < received.count {
            let n = received.withUnsafeMutableBytes { read(fds[1], $0.baseAddress! + got, $0.count - got) }
            XCTAssertGreaterThan(n, 0)
            if n <= 0 { break }
            got += n
        }
        for index in 0..<count {
            XCTAssertEqual(try open(Array(received[(index * 19)..<(index * 19 + 19)]), &receiver), [UInt8(index)])
        }
    }
}

/// What a lane job read of its thread's nice value, from the lane's thread.
private final class NiceSeen: Sendable {
    let value = Mutex<Int32?>(nil)
}
