import Foundation
import Glibc
import XCTest
@testable import PeerCore
@testable import PeerIO
@testable import PeerSystem

/// A delegate that records frames and holds the transport for a
/// subscriber at the frame the test names, as the flow hold does when a
/// delivered message puts a subscriber half its queue behind.
@MainActor
private final class HoldingDelegate: SessionTransportDelegate {
    weak var transport: SessionTransport?
    var holdAt: Int?
    var holder: ReadHolds = .subscribers
    private(set) var frames: [[UInt8]] = []
    func transportConnected() {}
    func transportConnectFailed(_ reason: String) {}
    func transportBytesArrived() {}
    func transportReceived(_ frame: UnsafeMutableRawBufferPointer) -> Bool {
        frames.append(Array(frame))
        if frames.count == holdAt { transport?.holdReading(true, for: holder) }
        return true
    }
    func transportBroke(_ why: String) {}
    func transportHasRoom() {}
    func transportCorrupt(_ why: String) {}
}

/// The subscriber hold over a real socket pair (tier 2): frames already
/// read wait in the buffer while a subscriber is behind, and go on, in
/// order, when it lets go, with no new byte from the peer to wake them.
@MainActor
final class SessionTransportHoldTests: XCTestCase {
    /// A transport for `delegate` on one end of a socket pair, and the
    /// other end (the peer), which has written `bytes` in one write.
    private func transport(for delegate: HoldingDelegate, peerWrites bytes: [UInt8]) throws -> (SessionTransport, FileDescriptor) {
        var fds: [Int32] = [0, 0]
        XCTAssertEqual(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0, &fds), 0)
        let peer = FileDescriptor(rawValue: fds[1])
        let transport = SessionTransport(descriptor: FileDescriptor(rawValue: fds[0]), connecting: false, sendLimit: 1 << 20,
                                         delegate: delegate, clock: .system)
        delegate.transport = transport
        XCTAssertEqual(bytes.withUnsafeBytes { Glibc.write(peer.rawValue, $0.baseAddress, $0.count) }, bytes.count)
        return (transport, peer)
    }

    func testASubscriberHoldStopsFramesAlreadyReadAndReleasingDeliversTheRest() async throws {
        let delegate = HoldingDelegate()
        delegate.holdAt = 2
        // Five frames in one write: one read takes them all.
        let (transport, peer) = try transport(for: delegate, peerWrites: (1...5).flatMap { n -> [UInt8] in [0, 2, UInt8(n), UInt8(n)] })
        defer { transport.closeAfterSending(); peer.close() }
        let two = try await eventually { delegate.frames.count == 2 }
        XCTAssertTrue(two, "frames: \(delegate.frames)")
        // A moment for any frame that would wrongly follow.
        try await Task.sleep(nanoseconds: 50_000_000)
        XCTAssertEqual(delegate.frames.count, 2, "the frames after the hold wait in the buffer")
        transport.holdReading(false, for: .subscribers)
        let all = try await eventually { delegate.frames.count == 5 }
        XCTAssertTrue(all, "frames: \(delegate.frames)")
        XCTAssertEqual(delegate.frames, (1...5).map { [UInt8($0), UInt8($0)] }, "in order, none twice")
    }

    /// A channel's hold stops only the next read, as before: the frames
    /// of the read in hand go on (the channel's output absorbs them).
    func testAChannelHoldLetsTheFramesInHandGoOn() async throws {
        let delegate = HoldingDelegate()
        delegate.holdAt = 1
        delegate.holder = .channel
        let (transport, peer) = try transport(for: delegate, peerWrites: [0, 1, 7, 0, 1, 8, 0, 1, 9])
        defer { transport.closeAfterSending(); peer.close() }
        let all = try await eventually { delegate.frames.count == 3 }
        XCTAssertTrue(all, "frames: \(delegate.frames)")
        XCTAssertEqual(transport.readHolds, .channel)
    }
}
