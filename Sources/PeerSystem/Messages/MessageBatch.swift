import CSockets
import Glibc

/// A fixed set of message slots read or written in one system call
/// (`recvmmsg`, `sendmmsg`) on a datagram or `SOCK_SEQPACKET` socket: each
/// slot is a buffer of ``slotSize`` bytes with room for an address and
/// control data. The datagram path (issue 26) moves up to ``capacity``
/// datagrams, or client records, a call each way instead of one.
///
/// Its slots are page-aligned memory of their own, so ``release()`` can
/// hand their touched pages back after a burst (`madvise(MADV_DONTNEED)`):
/// an idle daemon keeps no buffers it used for bulk work.
///
/// Not thread-safe: it has one owner (the datagram engine's queue).
public final class MessageBatch {
    /// What one `recvmmsg` came to.
    public enum ReceiveOutcome: Sendable, Equatable {
        /// Messages were read into slots `0..<count`.
        case received(Int)
        /// None waits (`EAGAIN`).
        case none
        /// Another error, with its errno.
        case failed(Int32)
    }

    /// What one `sendmmsg` came to.
    public enum SendOutcome: Sendable, Equatable {
        /// The kernel took the first `count` messages asked for (at least one).
        case sent(Int)
        /// The socket's buffer is full (`EAGAIN`, `ENOBUFS`): the first message was not taken.
        case wouldBlock
        /// The first message failed with this errno (no route, unreachable, …).
        case failed(Int32)
    }

    /// How many messages one call moves, at most.
    public let capacity: Int
    /// The bytes of one slot.
    public let slotSize: Int
    /// Control bytes per slot: room for two `cmsghdr`s (16 bytes each) with a
    /// 4-byte value, each aligned to 8 (24 bytes).
    public static let controlSize = 64

    private let slots: UnsafeMutableRawPointer
    private let slotBytes: Int
    private let headers: UnsafeMutablePointer<peerd_mmsghdr>
    private let vectors: UnsafeMutablePointer<iovec>
    private let names: UnsafeMutablePointer<sockaddr_storage>
    private let controls: UnsafeMutableRawPointer
    /// The messages of one ``sendTrains(_:on:)`` call, each a train of slots.
    private let trains: UnsafeMutablePointer<peerd_mmsghdr>
    private let trainControls: UnsafeMutableRawPointer
    /// Each train's number of slots, in the call being made.
    private var trainSizes: [Int] = []
    /// Whether the slots were used since the last ``releaseIfIdle()``.
    private var usedSinceCheck = false
    /// Whether touched pages may be held.
    private var holding = false

    /// `capacity` slots of `slotSize` bytes; nothing is touched until used.
    public init(capacity: Int, slotSize: Int) {
        precondition(capacity > 0 && slotSize > 0, "a batch needs slots")
        self.capacity = capacity
        self.slotSize = slotSize
        let page = Int(sysconf(Int32(_SC_PAGESIZE)))
        slotBytes = (capacity * slotSize + page - 1) / page * page
        slots = UnsafeMutableRawPointer.allocate(byteCount: slotBytes, alignment: page)
        headers = .allocate(capacity: capacity)
        headers.initialize(repeating: peerd_mmsghdr(), count: capacity)
        vectors = .allocate(capacity: capacity)
        vectors.initialize(repeating: iovec(), count: capacity)
        names = .allocate(capacity: capacity)
        names.initialize(repeating: sockaddr_storage(), count: capacity)
        controls = .allocate(byteCount: capacity * Self.controlSize, alignment: 16)
        trains = .allocate(capacity: capacity)
        trains.initialize(repeating: peerd_mmsghdr(), count: capacity)
        trainControls = .allocate(byteCount: capacity * Self.controlSize, alignment: 16)
        trainControls.initializeMemory(as: UInt8.self, repeating: 0, count: capacity * Self.controlSize)
        trainSizes.reserveCapacity(capacity)
    }

    deinit {
        slots.deallocate()
        headers.deallocate()
        vectors.deallocate()
        names.deallocate()
        controls.deallocate()
        trains.deallocate()
        trainControls.deallocate()
    }

    /// Slot `index`'s whole buffer.
    public func slot(_ index: Int) -> UnsafeMutableRawBufferPointer {
        UnsafeMutableRawBufferPointer(start: slots + index * slotSize, count: slotSize)
    }

    // MARK: Receiving

    /// Reads what waits on `descriptor`, up to ``capacity`` messages, never
    /// waiting. `names`: where each came from is kept (``address(_:)``);
    /// `control`: its control data (``control(_:)``). A message longer
    /// than a slot is cut, and ``length(_:)`` says its whole length
    /// (`MSG_TRUNC`).
    public func receive(from descriptor: FileDescriptor, names keepNames: Bool, control keepControl: Bool) -> ReceiveOutcome {
        usedSinceCheck = true
        for index in 0..<capacity {
            vectors[index] = iovec(iov_base: slots + index * slotSize, iov_len: slotSize)
            var header = msghdr()
            if keepNames {
                header.msg_name = UnsafeMutableRawPointer(names + index)
                header.msg_namelen = socklen_t(MemoryLayout<sockaddr_storage>.size)
            }
            header.msg_iov = vectors + index
            header.msg_iovlen = 1
            if keepControl {
                header.msg_control = controls + index * Self.controlSize
                header.msg_controllen = Self.controlSize
            }
            headers[index] = peerd_mmsghdr(msg_hdr: header, msg_len: 0)
        }
        while true {
            let count = peerd_recvmmsg(descriptor.rawValue, headers, UInt32(capacity), Int32(MSG_DONTWAIT) | Int32(MSG_TRUNC))
            if count >= 0 { return .received(Int(count)) }
            switch errno {
            case EINTR: continue
            case EAGAIN, EWOULDBLOCK: return .none
            case let code: return .failed(code)
            }
        }
    }

    /// The length of message `index` as read: the whole message's, even
    /// when it was cut to the slot (then it is past ``slotSize``). Zero on
    /// a `SOCK_SEQPACKET` socket is its end.
    public func length(_ index: Int) -> Int { Int(headers[index].msg_len) }

    /// Where message `index` came from (read with `names`).
    public func address(_ index: Int) -> DatagramAddress {
        DatagramAddress(storage: names[index], length: headers[index].msg_hdr.msg_namelen)
    }

    /// Message `index`'s control data, as much as the kernel filled in (read with `control`).
    public func control(_ index: Int) -> UnsafeRawBufferPointer {
        UnsafeRawBufferPointer(start: controls + index * Self.controlSize, count: min(headers[index].msg_hdr.msg_controllen, Self.controlSize))
    }

    /// The 4-byte value of the control message at `level` and `type` in
    /// message `index`'s control data, if the kernel gave one.
    public func controlValue(_ index: Int, level: Int32, type: Int32) -> UInt32? {
        let control = control(index)
        var offset = 0
        // Each: cmsg_len (size_t), cmsg_level, cmsg_type (Int32 each), the data, aligned to 8.
        while offset + 20 <= control.count {
            let length = control.load(fromByteOffset: offset, as: Int.self)
            guard length >= 16, offset + length <= control.count else { return nil }
            if control.load(fromByteOffset: offset + 8, as: Int32.self) == level, control.load(fromByteOffset: offset + 12, as: Int32.self) == type, length >= 20 {
                return control.load(fromByteOffset: offset + 16, as: UInt32.self)
            }
            offset += (length + 7) & ~7
        }
        return nil
    }

    // MARK: Sending

    /// Makes slot `index` the message of its first `length` bytes, to
    /// `address` (nil: a connected socket's peer).
    public func prepare(_ index: Int, length: Int, to address: DatagramAddress?) {
        precondition(length <= slotSize, "a message fits its slot")
        usedSinceCheck = true
        vectors[index] = iovec(iov_base: slots + index * slotSize, iov_len: length)
        var header = msghdr()
        if let address {
            names[index] = address.storage
            header.msg_name = UnsafeMutableRawPointer(names + index)
            header.msg_namelen = address.length
        }
        header.msg_iov = vectors + index
        header.msg_iovlen = 1
        headers[index] = peerd_mmsghdr(msg_hdr: header, msg_len: 0)
    }

    /// Sends the prepared messages `range` on `descriptor`, never waiting.
    /// The kernel stops at the first message it does not take; what it
    /// says is that message's fate when it is the first.
    public func send(_ range: Range<Int>, on descriptor: FileDescriptor) -> SendOutcome {
        precondition(range.lowerBound >= 0 && range.upperBound <= capacity, "messages of the batch")
        guard !range.isEmpty else { return .sent(0) }
        while true {
            let count = peerd_sendmmsg(descriptor.rawValue, headers + range.lowerBound, UInt32(range.count), Int32(MSG_DONTWAIT) | Int32(MSG_NOSIGNAL))
            if count > 0 { return .sent(Int(count)) }
            if count == 0 { return .wouldBlock }
            switch errno {
            case EINTR: continue
            case EAGAIN, EWOULDBLOCK, ENOBUFS: return .wouldBlock
            case let code: return .failed(code)
            }
        }
    }

    /// `UDP_SEGMENT` (linux/udp.h), an option at `SOL_UDP` (17).
    static let udpSegment: Int32 = 103
    static let solUDP: Int32 = 17
    /// Segments a train carries at most (the kernel's `UDP_MAX_SEGMENTS`
    /// is 64 or more), and its bytes at most (one IP packet's room).
    public static let maxTrainSegments = 64
    public static let maxTrainBytes = 60_000

    /// Sends the prepared UDP datagrams `range` as trains (UDP GSO): each
    /// run of messages to one address, all of one length but the last,
    /// which may be shorter, goes down the stack as one `UDP_SEGMENT`
    /// message and leaves it as those same datagrams, so the route, the
    /// netfilter hooks and the device are paid once a train instead of
    /// once a datagram. What the kernel says is counted in messages, as
    /// ``send(_:on:)``'s is: a train goes whole or not at all. A kernel or
    /// device that cannot segment fails the first train of two or more
    /// with `EINVAL`, `EIO` or `EOPNOTSUPP`; the caller then sends singly.
    public func sendTrains(_ range: Range<Int>, on descriptor: FileDescriptor) -> SendOutcome {
        precondition(range.lowerBound >= 0 && range.upperBound <= capacity, "messages of the batch")
        guard !range.isEmpty else { return .sent(0) }
        trainSizes.removeAll(keepingCapacity: true)
        var start = range.lowerBound
        while start < range.upperBound {
            let size = Int(vectors[start].iov_len)
            var end = start + 1, bytes = size
            while end < range.upperBound, end - start < Self.maxTrainSegments, sameAddress(start, end) {
                let length = Int(vectors[end].iov_len)
                guard length <= size, bytes + length <= Self.maxTrainBytes else { break }
                bytes += length
                end += 1
                // A shorter one ends the train.
                if length < size { break }
            }
            var header = headers[start].msg_hdr
            header.msg_iovlen = end - start
            if end - start > 1 {
                let control = trainControls + trainSizes.count * Self.controlSize
                // One cmsghdr (length, level, type) and the segment size, a u16.
                control.storeBytes(of: 18, toByteOffset: 0, as: Int.self)
                control.storeBytes(of: Self.solUDP, toByteOffset: 8, as: Int32.self)
                control.storeBytes(of: Self.udpSegment, toByteOffset: 12, as: Int32.self)
                control.storeBytes(of: UInt16(size), toByteOffset: 16, as: UInt16.self)
                header.msg_control = control
                header.msg_controllen = 24
            } else {
                header.msg_control = nil
                header.msg_controllen = 0
            }
            trains[trainSizes.count] = peerd_mmsghdr(msg_hdr: header, msg_len: 0)
            trainSizes.append(end - start)
            start = end
        }
        while true {
            let count = peerd_sendmmsg(descriptor.rawValue, trains, UInt32(trainSizes.count), Int32(MSG_DONTWAIT) | Int32(MSG_NOSIGNAL))
            if count > 0 { return .sent(trainSizes[0..<Int(count)].reduce(0, +)) }
            if count == 0 { return .wouldBlock }
            switch errno {
            case EINTR: continue
            case EAGAIN, EWOULDBLOCK, ENOBUFS: return .wouldBlock
            case let code: return .failed(code)
            }
        }
    }

    /// Whether prepared messages `a` and `b` go to the same address.
    private func sameAddress(_ a: Int, _ b: Int) -> Bool {
        let length = headers[a].msg_hdr.msg_namelen
        guard length == headers[b].msg_hdr.msg_namelen else { return false }
        return length == 0 || memcmp(names + a, names + b, Int(length)) == 0
    }

    // MARK: Memory

    /// Hands the slots' touched pages back to the kernel; the next use
    /// finds them zeroed.
    public func release() {
        _ = madvise(slots, slotBytes, MADV_DONTNEED)
        holding = false
    }

    /// Called at a steady pace (the daemon's tick): hands the pages back
    /// once a whole period passed without the batch being used, and only
    /// once after each use (an idle daemon makes no call for it).
    public func releaseIfIdle() {
        if usedSinceCheck {
            usedSinceCheck = false
            holding = true
        } else if holding {
            release()
        }
    }
}
