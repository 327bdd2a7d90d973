import Foundation
import Glibc
import PeerProtocol
import PeerSystem

/// A daemon of the tests' making, on a Unix socket in a temporary folder:
/// each accepted connection is handed to `serve` on a thread of its own,
/// which reads requests and writes answers and events by hand, as the
/// real daemon would (docs/control-protocol.md).
final class FakeDaemon: @unchecked Sendable {
    // @unchecked: `listener` and `path` are set once in init; `connections`
    // is guarded by `lock`.
    let path: String
    private let listener: Int32
    private let lock = NSLock()
    private var accepted = 0

    /// Listens; `serve(n, connection)` runs for the n-th connection (from 1).
    init(serve: @escaping @Sendable (Int, FakeConnection) -> Void) throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("peerkit-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        path = folder.appendingPathComponent("peerd.sock").path
        let listener = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        let address = try SocketAddress.unix(path)
        let path = path
        try SocketAddress.withSockaddr(address) { pointer, length throws(SystemError) in
            try Syscall.call("bind", path) { bind(listener, pointer, length) }
        }
        try Syscall.call("listen") { listen(listener, 8) }
        self.listener = listener
        Thread.detachNewThread { [self] in
            while true {
                let fd = accept(listener, nil, nil)
                guard fd >= 0 else { return }
                let number = lock.withLock { accepted += 1; return accepted }
                Thread.detachNewThread { serve(number, FakeConnection(fd: fd)) }
            }
        }
    }

    /// Connections accepted so far.
    var connections: Int { lock.withLock { accepted } }

    /// Stops listening.
    func stop() {
        shutdown(listener, Int32(SHUT_RDWR))
        close(listener)
    }
}

/// One connection of the fake daemon: blocking reads of request lines,
/// writes of answer and event lines.
final class FakeConnection: @unchecked Sendable {
    // @unchecked: used only by the one thread that serves it.
    let fd: Int32
    private var pending: [UInt8] = []

    init(fd: Int32) { self.fd = fd }

    /// The next request, or nil once the client closed.
    func request() -> ControlRequest? {
        nextLine().flatMap { try? JSONLines.decode(ControlRequest.self, from: $0) }
    }

    /// The next request as the JSON object it is, or nil once the client closed.
    func requestObject() -> [String: Any]? {
        nextLine().flatMap { (try? JSONSerialization.jsonObject(with: Data($0))) as? [String: Any] }
    }

    /// The next line the client wrote, without its newline; nil once it closed.
    private func nextLine() -> [UInt8]? {
        while true {
            if let newline = pending.firstIndex(of: 10) {
                let line = Array(pending[..<newline])
                pending.removeSubrange(...newline)
                return line
            }
            var buffer = [UInt8](repeating: 0, count: 4096)
            let count = read(fd, &buffer, buffer.count)
            guard count > 0 else { return nil }
            pending += buffer[0..<count]
        }
    }

    /// The next request and the descriptors that came with it
    /// (`SCM_RIGHTS`, as `sendFile` and `fetch` send them); nil once the
    /// client closed. Lines read before are not carried over: call it for
    /// a request that comes after every earlier one was answered.
    func requestWithDescriptors() -> (ControlRequest, [FileDescriptor])? {
        var descriptors: [FileDescriptor] = []
        while !pending.contains(10) {
            guard let got = try? DescriptorPassing.receive(on: FileDescriptor(rawValue: fd), maxBytes: 65_536, maxCount: 64) else { return nil }
            pending += got.bytes
            descriptors += got.descriptors
            if got.bytes.isEmpty { return nil }
        }
        return request().map { ($0, descriptors) }
    }

    /// Answers `request` with `result`.
    func answer<R: Codable & Sendable>(_ request: ControlRequest, _ result: R) {
        write(try! JSONLines.encode(ControlResponse(id: request.id, result: result)))
    }

    /// Answers `request` with `error`.
    func fail(_ request: ControlRequest, _ error: ControlError) {
        write(try! JSONLines.encode(ControlResponse<EmptyResult>(id: request.id, error: error)))
    }

    /// Sends an event numbered `seq`.
    func event(_ seq: UInt64, _ type: EventKind = .peerFound) {
        write(eventLine(seq, type))
    }

    /// The bytes of an event line.
    func eventLine(_ seq: UInt64, _ type: EventKind = .peerFound) -> [UInt8] {
        try! JSONLines.encode(EventLine(ControlEvent(seq: seq, type: type, time: Date(timeIntervalSince1970: 1))))
    }

    /// Writes all of `bytes` (blocking).
    func write(_ bytes: [UInt8]) {
        var sent = 0
        while sent < bytes.count {
            let count = bytes[sent...].withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
            guard count > 0 else { return }
            sent += count
        }
    }

    /// Closes it.
    func close() { Glibc.close(fd) }
}
