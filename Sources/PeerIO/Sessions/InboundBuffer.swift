import PeerCore

/// The bytes read from a session's socket and not yet handled: one buffer
/// that frames are cut from and decrypted in, where they lie, so a bulk
/// frame costs no allocation and no copy on the way in (issue 12, point 8).
///
/// Its capacity is one read plus the largest frame: the bytes of a frame
/// not yet whole move to the front before the next read, which then always
/// has ``readSize`` bytes of room. The memory is taken at the first read
/// and let go by ``release()`` when nothing is pending, so an idle session
/// holds none; a session not yet accepted holds a small one
/// (``resize(readSize:largestFrame:)`` grows it once frames may be large),
/// so an unauthenticated peer cannot make us hold more.
final class InboundBuffer {
    /// Bytes asked of the socket per read: several full frames at once.
    private(set) var readSize: Int
    private var capacity: Int
    private var storage: UnsafeMutableRawBufferPointer?
    /// The first byte not yet handed out.
    private var start = 0
    /// One past the last byte read.
    private var end = 0

    /// A buffer for reads of `readSize` bytes and frames (with their
    /// 2-byte length) of up to `largestFrame` bytes.
    init(readSize: Int, largestFrame: Int = 2 + 65535) {
        self.readSize = readSize
        capacity = readSize + largestFrame
    }

    deinit { storage?.deallocate() }

    /// New sizes for reads and frames; the pending bytes stay.
    func resize(readSize: Int, largestFrame: Int) {
        let capacity = readSize + largestFrame
        guard capacity != self.capacity else { return }
        precondition(capacity >= end - start, "a smaller buffer than what it holds")
        if let storage {
            let larger = UnsafeMutableRawBufferPointer.allocate(byteCount: capacity, alignment: 16)
            if end > start { larger.baseAddress!.copyMemory(from: storage.baseAddress! + start, byteCount: end - start) }
            end -= start
            start = 0
            storage.deallocate()
            self.storage = larger
        }
        self.readSize = readSize
        self.capacity = capacity
    }

    /// Bytes read and not yet handed out as whole frames.
    var pendingCount: Int { end - start }

    /// Reads once from `descriptor` into the room after the pending bytes:
    /// the count read, 0 at end of stream, nil when it would block. Views
    /// from ``nextFrame(maxFrame:)`` are invalid afterwards.
    func read(from descriptor: FileDescriptor) throws(SystemError) -> Int? {
        let storage = self.storage ?? UnsafeMutableRawBufferPointer.allocate(byteCount: capacity, alignment: 16)
        self.storage = storage
        if start > 0 {
            if end > start { storage.baseAddress!.copyMemory(from: storage.baseAddress! + start, byteCount: end - start) }
            end -= start
            start = 0
        }
        let count = try descriptor.read(into: UnsafeMutableRawBufferPointer(rebasing: storage[end..<capacity]))
        if let count { end += count }
        return count
    }

    /// The next whole frame's payload (its length prefix left out), handed
    /// out as a mutable view into the buffer, valid until the next
    /// ``read(from:)``; nil while no whole frame is held. A length of 0 or
    /// over `maxFrame` throws.
    func nextFrame(maxFrame: Int) throws(WireError) -> UnsafeMutableRawBufferPointer? {
        let unread = self.unread
        guard let range = try FrameReader.nextFrame(in: UnsafeRawBufferPointer(unread), maxFrame: maxFrame) else { return nil }
        consume(range.upperBound)
        return UnsafeMutableRawBufferPointer(rebasing: unread[range])
    }

    /// The bytes read and not yet handed out, for a reader with framing of
    /// its own (a message channel's); valid until the next ``read(from:)``.
    var unread: UnsafeMutableRawBufferPointer {
        guard let storage else { return UnsafeMutableRawBufferPointer(start: nil, count: 0) }
        return UnsafeMutableRawBufferPointer(rebasing: storage[start..<end])
    }

    /// Marks the first `count` unread bytes as handed out.
    func consume(_ count: Int) {
        precondition(count <= end - start, "consumed more than was read")
        start += count
    }

    /// Lets the memory go when no byte is pending.
    func release() {
        guard start == end, let storage else { return }
        storage.deallocate()
        self.storage = nil
        start = 0
        end = 0
    }
}
