import Glibc
import XCTest
@testable import PeerSystem

/// Descriptors across a Unix socket pair (tier 2: real sockets, no network).
final class DescriptorPassingTests: XCTestCase {
    private func socketPair() throws -> (FileDescriptor, FileDescriptor) {
        var fds: [Int32] = [0, 0]
        XCTAssertEqual(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &fds), 0)
        return (FileDescriptor(rawValue: fds[0]), FileDescriptor(rawValue: fds[1]))
    }

    private func pipePair() -> (read: FileDescriptor, write: FileDescriptor) {
        var fds: [Int32] = [0, 0]
        XCTAssertEqual(pipe(&fds), 0)
        for fd in fds { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        return (FileDescriptor(rawValue: fds[0]), FileDescriptor(rawValue: fds[1]))
    }

    /// A pipe's write end goes across; bytes written through the received
    /// copy come out of the pipe here, and the copy is close-on-exec.
    func testAPipeEndCrossesAndWorks() throws {
        let (left, right) = try socketPair()
        defer { left.close(); right.close() }
        let pipe = pipePair()
        defer { pipe.read.close() }
        try DescriptorPassing.send(Array("take this".utf8), descriptors: [pipe.write], on: left)
        pipe.write.close()
        let received = try XCTUnwrap(DescriptorPassing.receive(on: right, maxBytes: 64, maxCount: 1))
        XCTAssertEqual(String(decoding: received.bytes, as: UTF8.self), "take this")
        XCTAssertEqual(received.descriptors.count, 1)
        let copy = try XCTUnwrap(received.descriptors.first)
        XCTAssertEqual(fcntl(copy.rawValue, F_GETFD) & FD_CLOEXEC, FD_CLOEXEC, "close-on-exec")
        try copy.writeAll(Array("through".utf8))
        copy.close()
        var buffer = [UInt8](repeating: 0, count: 16)
        let count = read(pipe.read.rawValue, &buffer, buffer.count)
        XCTAssertEqual(String(decoding: buffer.prefix(max(count, 0)), as: UTF8.self), "through")
    }

    /// More descriptors than asked for are closed, never leaked, and the
    /// call says so; a message without any is plain bytes; the end of the
    /// stream is nil.
    func testExtraDescriptorsAreClosedAndTheEndIsNil() throws {
        let (left, right) = try socketPair()
        defer { left.close(); right.close() }
        let first = pipePair(), second = pipePair()
        defer { for fd in [first.read, first.write, second.read, second.write] { fd.close() } }
        let before = try FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").count
        try DescriptorPassing.send([1], descriptors: [first.write, second.write], on: left)
        XCTAssertThrowsError(try DescriptorPassing.receive(on: right, maxBytes: 8, maxCount: 1)) { error in
            XCTAssertTrue("\(error)".contains("2 descriptors arrived"), "\(error)")
        }
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").count, before, "nothing leaked")
        try DescriptorPassing.send([7], descriptors: [], on: left)
        let plain = try XCTUnwrap(DescriptorPassing.receive(on: right, maxBytes: 8, maxCount: 1))
        XCTAssertEqual(plain.bytes, [7])
        XCTAssertTrue(plain.descriptors.isEmpty)
        XCTAssertThrowsError(try DescriptorPassing.send([1], descriptors: Array(repeating: first.read, count: DescriptorPassing.maxDescriptors + 1), on: left))
        shutdown(left.rawValue, Int32(SHUT_WR))
        XCTAssertNil(try DescriptorPassing.receive(on: right, maxBytes: 8, maxCount: 1))
    }
}
