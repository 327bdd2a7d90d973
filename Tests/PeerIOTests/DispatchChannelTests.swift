import Foundation
import Glibc
import XCTest
@testable import PeerIO
import PeerSystem

/// Dispatch's rules for a channel's sources, kept even when its owner
/// lets go of it without closing it.
@MainActor
final class DispatchChannelTests: XCTestCase {
    func testAChannelReleasedUnclosedWithSuspendedSourcesClosesItsDescriptorAndDoesNotTrap() async throws {
        var pair: [Int32] = [-1, -1]
        XCTAssertEqual(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &pair), 0)
        defer { close(pair[1]) }
        var channel: DispatchChannel? = DispatchChannel(descriptor: FileDescriptor(rawValue: pair[0]), onReadable: {}, onWritable: {})
        channel?.pauseReading()   // both sources suspended now: releasing them as they are traps
        channel = nil
        // The descriptor is closed once Dispatch has cancelled both sources:
        // the other end then reads end-of-file.
        var byte: UInt8 = 0
        let deadline = Date().addingTimeInterval(5)
        var got = -1
        while Date() < deadline {
            got = recv(pair[1], &byte, 1, Int32(MSG_DONTWAIT))
            if got == 0 { break }
            try await Task.sleep(nanoseconds: 2_000_000)
        }
        XCTAssertEqual(got, 0, "the released channel's descriptor was closed")
    }
}
