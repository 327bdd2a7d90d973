import Glibc

/// Bytes waiting for a non-blocking descriptor: what a message channel owes
/// its client, or what a stream owes its pipe. Written from the front as
/// the descriptor takes them; the written prefix is dropped only when all
/// is written or it has grown past ``compactAfter`` (one move per that many
/// bytes, not one per write). The owner bounds how much it appends (a
/// channel's high watermark, a stream's window): this type only queues.
public struct OutputBuffer: Sendable {
    private var bytes: [UInt8] = []
    private var start = 0
    /// A written prefix longer than this is dropped even while bytes wait.
    public let compactAfter: Int
    /// Capacity kept for reuse once everything is written; a larger buffer
    /// is let go, so a burst does not pin its peak.
    public let keepCapacity: Int

    /// An empty buffer.
    public init(compactAfter: Int = 1 << 20, keepCapacity: Int) {
        self.compactAfter = compactAfter
        self.keepCapacity = keepCapacity
    }

    /// Bytes not yet written.
    public var count: Int { bytes.count - start }

    /// Whether nothing waits.
    public var isEmpty: Bool { count == 0 }

    /// Queues `more` after what waits.
    public mutating func append(_ more: UnsafeRawBufferPointer) {
        if isEmpty { reset() }
        bytes.append(contentsOf: more)
    }

    /// Queues what `body` appends to the end (a frame's prefix and its
    /// bytes, without building the frame anywhere else first).
    public mutating func append(_ body: (inout [UInt8]) -> Void) {
        if isEmpty { reset() }
        body(&bytes)
    }

    /// Writes what `descriptor` takes (with `write`, so pipes and files work
    /// too), until it would block or nothing waits. Returns the bytes
    /// written; throws on a failed write (`EPIPE` when the reader is gone).
    public mutating func write(to descriptor: Int32) throws(SystemError) -> Int {
        var written = 0
        while start < bytes.count {
            let from = start
            let count: Int? = try Syscall.nonBlocking("write") {
                bytes.withUnsafeBytes { raw in Glibc.write(descriptor, raw.baseAddress! + from, raw.count - from) }
            }
            guard let count else { break }
            start += count
            written += count
        }
        if start == bytes.count {
            reset()
        } else if start >= compactAfter {
            bytes.removeFirst(start)
            start = 0
        }
        return written
    }

    /// Drops everything, and the memory with it.
    public mutating func release() {
        bytes = []
        start = 0
    }

    private mutating func reset() {
        bytes.removeAll(keepingCapacity: bytes.capacity <= keepCapacity)
        start = 0
    }
}
