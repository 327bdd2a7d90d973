import Foundation
import Glibc
import PeerCore
import XCTest
@testable import PeerIO
import PeerProtocol

final class UnixSocketListenerTests: XCTestCase {
    private var directory = ""

    override func setUp() { directory = NSTemporaryDirectory() + "peerd-sock-\(UUID().uuidString.prefix(8))" }
    override func tearDown() { try? FileManager.default.removeItem(atPath: directory) }

    func testCreatesDirectoryAndSetsMode0660() throws {
        let listener = try UnixSocketListener(path: directory + "/run/peerd.sock")
        defer { listener.close() }
        var info = stat()
        XCTAssertEqual(stat(listener.path, &info), 0)
        XCTAssertEqual(info.st_mode & S_IFMT, S_IFSOCK)
        XCTAssertEqual(info.st_mode & 0o777, 0o660)
    }

    func testRefusesALiveSocketAndReplacesAStaleOne() throws {
        let path = directory + "/p.sock"
        let live = try UnixSocketListener(path: path)
        XCTAssertThrowsError(try UnixSocketListener(path: path)) { error in
            XCTAssertEqual((error as? SystemError)?.errno, EADDRINUSE)
            XCTAssertTrue("\(error)".contains("another peerd"))
        }
        // A crash leaves the path behind with nobody listening.
        live.descriptor.close()
        let replacement = try UnixSocketListener(path: path)
        replacement.close()
        XCTAssertFalse(FileManager.default.fileExists(atPath: path), "close removes the path")
    }

    func testNeverRemovesARegularFile() throws {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let path = directory + "/notasocket"
        try "data".write(toFile: path, atomically: false, encoding: .utf8)
        XCTAssertThrowsError(try UnixSocketListener(path: path))
        XCTAssertEqual(try String(contentsOfFile: path, encoding: .utf8), "data")
    }
}

final class TCPListenerTests: XCTestCase {
    private func connect(family: Int32, port: UInt16) -> Int32 {
        let fd = socket(family, Int32(SOCK_STREAM.rawValue), 0)
        var result: Int32
        if family == AF_INET6 {
            var address = sockaddr_in6()
            address.sin6_family = sa_family_t(AF_INET6)
            address.sin6_port = port.bigEndian
            address.sin6_addr = in6addr_loopback
            result = SocketAddress.withSockaddr(address) { Glibc.connect(fd, $0, $1) }
        } else {
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = port.bigEndian
            address.sin_addr.s_addr = UInt32(0x7f00_0001).bigEndian
            result = SocketAddress.withSockaddr(address) { Glibc.connect(fd, $0, $1) }
        }
        XCTAssertEqual(result, 0, "connect: \(String(cString: strerror(errno)))")
        return fd
    }

    private func acceptWithin(_ listener: TCPListener, seconds: Int32) throws -> FileDescriptor? {
        var pfd = pollfd(fd: listener.descriptor.rawValue, events: Int16(POLLIN), revents: 0)
        guard poll(&pfd, 1, seconds * 1000) == 1 else { return nil }
        return try listener.accept()
    }

    func testAnyFreePortAcceptsIPv4AndIPv6() throws {
        let listener = try TCPListener(port: 0)
        defer { listener.close() }
        XCTAssertNotEqual(listener.port, 0)
        XCTAssertNil(try listener.accept(), "nothing waiting: nil, not an error")
        let v4 = connect(family: AF_INET, port: listener.port)
        defer { close(v4) }
        let first = try XCTUnwrap(try acceptWithin(listener, seconds: 5))
        first.close()
        if listener.dualStack {
            let v6 = connect(family: AF_INET6, port: listener.port)
            defer { close(v6) }
            let second = try XCTUnwrap(try acceptWithin(listener, seconds: 5))
            second.close()
        }
    }

    private func noDelay(_ fd: Int32) -> Int32 {
        var value: Int32 = 0
        var length = socklen_t(MemoryLayout<Int32>.size)
        XCTAssertEqual(getsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &value, &length), 0)
        return value
    }

    func testSessionSocketsSetNoDelayOnBothSides() throws {
        let listener = try TCPListener(port: 0)
        defer { listener.close() }
        let dialled = try TCPConnector.startConnect(to: Endpoint(interface: "lo", family: .ipv4, address: "127.0.0.1", port: listener.port))
        defer { dialled.close() }
        let accepted = try XCTUnwrap(try acceptWithin(listener, seconds: 5))
        defer { accepted.close() }
        XCTAssertNotEqual(noDelay(dialled.rawValue), 0, "the dialling side waits on no delayed ACK")
        XCTAssertNotEqual(noDelay(accepted.rawValue), 0, "the accepting side waits on no delayed ACK")
    }

    func testBusyPortIsATypedError() throws {
        let first = try TCPListener(port: 0)
        defer { first.close() }
        XCTAssertThrowsError(try TCPListener(port: first.port)) { error in
            XCTAssertEqual((error as? SystemError)?.syscall, "bind")
            XCTAssertEqual((error as? SystemError)?.errno, EADDRINUSE)
        }
    }
}
