import PeerCore

/// The bytes read from a session's socket and not yet handled: one buffer
/// that frames are cut from and decrypted in, where they lie, so a bulk
/// frame costs no allocation and no copy on the way in (issue 12, point 8).
///
/// Its capacity is one read plus the largest frame: the bytes of a frame
/// not yet whole move to the front before the next read, which then always
/// has ``readSize`` bytes of room. A session not yet accepted has a small
/// capacity (``resize(readSize:largestFrame:)`` raises it once frames may
/// be large), so an unauthenticated peer cannot make us hold more.
///
/// The memory follows the traffic (issue 21, point 7): the first read
/// takes only ``firstSize`` bytes, which hold a keepalive, a message or a
/// handshake; the buffer grows to its capacity when a read fills it (bulk
/// bytes are arriving) or a frame does not fit. ``settle()``, once a
/// tick, lets it all go when nothing is pending and no read filled it
/// since the last, so a session that carried a transfer and now carries
/// only keepalives holds none of the 320 KiB it read the transfer with.
/// The soak found daemons holding one such buffer, every page touched,
/// per quiet session.
final class InboundBuffer {
    /// The most bytes taken at first, before traffic shows it needs more.
    static let firstSize = 16 * 1024
    /// Bytes asked of the socket per read: several full frames at once.
    private(set) var readSize: Int
    private var capacity: Int
    private var storage: UnsafeMutableRawBufferPointer?
    /// The first byte not yet handed out.
    private var start = 0
    /// One past the last byte read.
    private var end = 0
    /// Whether the last read filled all the room it had.
    private var lastReadFilled = false
    /// Whether a read filled all its room since the last ``settle()``.
    private var filledSinceSettle = false

    /// A buffer for reads of `readSize` bytes and frames (with their
    /// 2-byte length) of up to `largestFrame` bytes.
    init(readSize: Int, largestFrame: Int = 2 + 65535) {
        self.readSize = readSize
        capacity = readSize + largestFrame
    }

    deinit { storage?.deallocate() }

    /// The bytes held now: 0 when released, ``firstSize`` or the capacity.
    var heldBytes: Int { storage?.count ?? 0 }

    /// New sizes for reads and frames; the pending bytes stay.
    func resize(readSize: Int, largestFrame: Int) {
        let capacity = readSize + largestFrame
        guard capacity != self.capacity else { return }
        precondition(capacity >= end - start, "a smaller buffer than what it holds")
        self.readSize = readSize
        self.capacity = capacity
        // A smaller capacity than what is held takes a new buffer now; a
        // larger one is grown into when traffic needs it.
        if let storage, storage.count > capacity { move(to: capacity) }
    }

    /// Moves the pending bytes to the front of a new buffer of `size` bytes.
    private func move(to size: Int) {
        let moved = UnsafeMutableRawBufferPointer.allocate(byteCount: size, alignment: 16)
        if let storage {
            if end > start { moved.baseAddress!.copyMemory(from: storage.baseAddress! + start, byteCount: end - start) }
            storage.deallocate()
        }
        end -= start
        start = 0
        storage = moved
    }

    /// Bytes read and not yet handed out as whole frames.
    var pendingCount: Int { end - start }

    /// Reads once from `descriptor` into the room after the pending bytes:
    /// the count read, 0 at end of stream, nil when it would block. Views
    /// from ``nextFrame(maxFrame:)`` are invalid afterwards.
    func read(from descriptor: FileDescriptor) throws(SystemError) -> Int? {
        if let held = storage {
            if held.count < capacity, lastReadFilled || end - start == held.count {
                move(to: capacity)
            } else if start > 0 {
                if end > start { held.baseAddress!.copyMemory(from: held.baseAddress! + start, byteCount: end - start) }
                end -= start
                start = 0
            }
        } else {
            move(to: min(capacity, Self.firstSize))
        }
        let storage = storage!
        let room = storage.count - end
        let count = try descriptor.read(into: UnsafeMutableRawBufferPointer(rebasing: storage[end..<storage.count]))
        if let count {
            end += count
            lastReadFilled = count == room
            if lastReadFilled { filledSinceSettle = true }
        }
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
        lastReadFilled = false
    }

    /// Once a tick: lets the memory go (``release()``) unless a read
    /// filled the buffer since the last settle, which means bulk bytes are
    /// still arriving and the next read would only take it back.
    func settle() {
        if !filledSinceSettle { release() }
        filledSinceSettle = false
    }
}
