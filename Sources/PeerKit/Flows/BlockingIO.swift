import Dispatch
import Glibc
import PeerSystem

/// Blocking socket work run off Swift's cooperative threads, one serial
/// queue per user: a `send` that waits for room, a `read` that waits for
/// bytes. Waiting in the kernel is what lets peerd's backpressure reach
/// the program.
enum BlockingIO {
    /// Runs `body` on `queue` and resumes with its result.
    static func run<T: Sendable>(on queue: DispatchQueue, _ body: @escaping @Sendable () -> Result<T, PeerError>) async throws(PeerError) -> T {
        let outcome: Result<T, PeerError> = await withCheckedContinuation { (continuation: CheckedContinuation<Result<T, PeerError>, Never>) in
            queue.async { continuation.resume(returning: body()) }
        }
        return try outcome.get()
    }

    /// A connected pair of Unix sockets, close-on-exec: stream sockets, or
    /// with `seqPacket` record sockets (a `datagrams` socket).
    static func socketPair(seqPacket: Bool = false) throws(PeerError) -> (mine: FileDescriptor, theirs: FileDescriptor) {
        var pair: [Int32] = [-1, -1]
        let type = seqPacket ? Int32(SOCK_SEQPACKET.rawValue) : Int32(SOCK_STREAM.rawValue)
        guard socketpair(AF_UNIX, type | Int32(SOCK_CLOEXEC.rawValue), 0, &pair) == 0 else {
            throw .transport("socketpair: \(String(cString: strerror(errno)))")
        }
        return (FileDescriptor(rawValue: pair[0]), FileDescriptor(rawValue: pair[1]))
    }

    /// Writes all of `bytes` to `fd`, waiting for room.
    static func writeAll(_ bytes: [UInt8], to fd: FileDescriptor) -> Result<Void, PeerError> {
        var sent = 0
        while sent < bytes.count {
            let count = bytes[sent...].withUnsafeBytes { Glibc.send(fd.rawValue, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if count < 0 {
                if errno == EINTR { continue }
                return .failure(.transport("the channel is closed: \(String(cString: strerror(errno)))"))
            }
            sent += count
        }
        return .success(())
    }

    /// Reads exactly `count` bytes, or nil at the end before the first.
    static func readExactly(_ count: Int, from fd: FileDescriptor) -> Result<[UInt8]?, PeerError> {
        var bytes = [UInt8](repeating: 0, count: count)
        var got = 0
        while got < count {
            let n = bytes[got...].withUnsafeMutableBytes { Glibc.read(fd.rawValue, $0.baseAddress, $0.count) }
            if n < 0 {
                if errno == EINTR { continue }
                return .failure(.transport("reading the channel: \(String(cString: strerror(errno)))"))
            }
            if n == 0 { return got == 0 ? .success(nil) : .failure(.transport("the channel ended inside a message")) }
            got += n
        }
        return .success(bytes)
    }
}
