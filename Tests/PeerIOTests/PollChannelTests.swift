import Foundation
import Glibc
import XCTest
@testable import PeerIO
import PeerSystem

/// How a channel watches its descriptor through the poller: reports,
/// pauses, re-arming, closing, and an owner letting go without closing.
@MainActor
final class PollChannelTests: XCTestCase {
    /// A connected pair of non-blocking Unix stream sockets.
    private func socketPair() throws -> (Int32, Int32) {
        var pair: [Int32] = [-1, -1]
        XCTAssertEqual(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &pair), 0)
        for fd in pair { _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK) }
        return (pair[0], pair[1])
    }

    /// Waits for `condition`, turning the main queue over, for at most 10 s.
    private func eventually(_ what: String, _ condition: () -> Bool) async throws {
        let deadline = Date().addingTimeInterval(10)
        while !condition() {
            guard Date() < deadline else { return XCTFail("timed out waiting until \(what)") }
            try await Task.sleep(nanoseconds: 1_000_000)
        }
    }

    /// Turns the main queue over a few times, so that any report due has come.
    private func settle() async throws {
        for _ in 0..<20 { try await Task.sleep(nanoseconds: 1_000_000) }
    }

    func testAChannelReleasedUnclosedAndPausedClosesItsDescriptor() async throws {
        let (mine, theirs) = try socketPair()
        defer { close(theirs) }
        var channel: PollChannel? = PollChannel(descriptor: FileDescriptor(rawValue: mine), onReadable: {}, onWritable: {})
        channel?.pauseReading()
        channel = nil
        // The descriptor is closed by the channel's deinit: the other end
        // then reads end-of-file.
        var byte: UInt8 = 0
        var got = -1
        try await eventually("the other end reads end-of-file") {
            got = recv(theirs, &byte, 1, Int32(MSG_DONTWAIT))
            return got == 0
        }
        XCTAssertEqual(got, 0, "the released channel's descriptor was closed")
    }

    func testBytesLeftUnreadAreReportedAgainAndAPauseSilencesThem() async throws {
        let (mine, theirs) = try socketPair()
        defer { close(theirs) }
        var reports = 0
        var read = 0
        let channel = PollChannel(descriptor: FileDescriptor(rawValue: mine), onReadable: {
            reports += 1
            var byte: UInt8 = 0
            if recv(mine, &byte, 1, 0) == 1 { read += 1 }   // one byte a report: the rest stays
        }, onWritable: {})
        defer { channel.close() }
        XCTAssertEqual(send(theirs, "abc", 3, 0), 3)
        try await eventually("all three bytes are read, one a report") { read == 3 }
        XCTAssertGreaterThanOrEqual(reports, 3, "level-triggered: each byte left unread was reported again")

        channel.pauseReading()
        let before = reports
        XCTAssertEqual(send(theirs, "d", 1, 0), 1)
        try await settle()
        XCTAssertEqual(reports, before, "a paused channel hears nothing")
        channel.resumeReading()
        try await eventually("the byte sent while paused is read") { read == 4 }
    }

    func testWritingIsReportedOnlyWhileArmed() async throws {
        let (mine, theirs) = try socketPair()
        defer { close(theirs) }
        var writable = 0
        let channel = PollChannel(descriptor: FileDescriptor(rawValue: mine), onReadable: {}, onWritable: { writable += 1 })
        defer { channel.close() }
        try await settle()
        XCTAssertEqual(writable, 0, "an idle socket is writable, but nobody asked")
        channel.armWrite(true)
        try await eventually("an armed channel hears it may write") { writable > 0 }
        channel.armWrite(false)
        try await settle()
        let after = writable
        try await settle()
        XCTAssertEqual(writable, after, "disarmed, it hears no more")
    }

    func testCloseClosesTheDescriptorAtOnceAndRunsThenAfterwards() async throws {
        let (mine, theirs) = try socketPair()
        defer { close(theirs) }
        var readable = 0
        let channel = PollChannel(descriptor: FileDescriptor(rawValue: mine), onReadable: { readable += 1 }, onWritable: {})
        XCTAssertEqual(send(theirs, "x", 1, 0), 1)   // a report may be on its way
        var closed = false
        channel.close { closed = true }
        XCTAssertFalse(closed, "then runs after the caller's turn")
        XCTAssertTrue(channel.isClosing)
        var hangUp = pollfd(fd: theirs, events: Int16(POLLIN), revents: 0)
        XCTAssertEqual(poll(&hangUp, 1, 0), 1)
        XCTAssertNotEqual(Int32(hangUp.revents) & Int32(POLLHUP), 0, "the descriptor is closed at once: the other end hung up")
        try await eventually("then runs") { closed }
        try await settle()
        XCTAssertEqual(readable, 0, "a report that crossed the close reached nobody")
    }

    func testADescriptorEpollRefusesIsAlwaysReady() async throws {
        let null = open("/dev/null", O_RDONLY | O_NONBLOCK)
        XCTAssertGreaterThanOrEqual(null, 0)
        var readable = 0
        let channel = PollChannel(descriptor: FileDescriptor(rawValue: null), onReadable: { readable += 1 }, onWritable: {})
        try await eventually("/dev/null, which epoll refuses, is reported readable") { readable > 0 }
        channel.pauseReading()
        channel.close()
    }

    /// The pattern that trapped libdispatch's epoll backend (peerd 0.3.0's
    /// channel test crashed "Source finalized twice"): watch, read, hang
    /// up, close, and the same descriptor numbers at once again, many
    /// times, with every report still on its way reaching nobody.
    func testQuickChurnOfDescriptorsReusingNumbersLosesNoReport() async throws {
        let rounds = 5000
        let registered = Poller.main.table.count
        var done = 0
        var open: [PollChannel] = []
        func startOne() throws {
            let (mine, theirs) = try socketPair()
            var channel: PollChannel?
            channel = PollChannel(descriptor: FileDescriptor(rawValue: mine), onReadable: {
                var byte: UInt8 = 0
                _ = recv(mine, &byte, 1, 0)
                guard let ending = channel else { return }
                channel = nil
                ending.armWrite(true)   // a change of interest, then at once the end
                ending.close {
                    done += 1
                    if done + 4 <= rounds { try? startOne() }
                }
            }, onWritable: {})
            open.append(channel!)
            XCTAssertEqual(send(theirs, "x", 1, 0), 1)
            close(theirs)
        }
        for _ in 0..<4 { try startOne() }
        try await eventually("\(rounds) channels were read and closed") { done >= rounds }
        open.removeAll()
        XCTAssertEqual(Poller.main.table.count, registered, "every registration was removed")
    }
}
