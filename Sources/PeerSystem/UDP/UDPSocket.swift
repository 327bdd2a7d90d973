import Glibc

/// A non-blocking UDP socket on all addresses, IPv4 and IPv6 (one
/// `AF_INET6` socket with `IPV6_V6ONLY` off), or IPv4 only where the
/// kernel has no IPv6: thin, typed `sendmmsg` and `recvmmsg` over a
/// ``MessageBatch``.
public struct UDPSocket: Sendable {
    /// The descriptor, non-blocking.
    public let descriptor: FileDescriptor
    /// The bound port.
    public let port: UInt16
    /// Whether it also carries IPv6 (then IPv4 peers are mapped).
    public let dualStack: Bool

    /// Binds to `port`; when it is taken (`EADDRINUSE`) and `fallBack`,
    /// to any free port instead.
    public init(port: UInt16, fallBack: Bool = true) throws(SystemError) {
        let (descriptor, dualStack) = try DualStackSocket.open(type: Int32(SOCK_DGRAM.rawValue), what: "UDP")
        let fd = descriptor.rawValue
        do {
            // Room for bursts (the kernel caps it at net.core.rmem_max and
            // wmem_max), and the count of what a full buffer dropped
            // (SO_RXQ_OVFL: said with each datagram read).
            var size: Int32 = 4 << 20
            var on: Int32 = 1
            _ = setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
            _ = setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &size, socklen_t(MemoryLayout<Int32>.size))
            _ = setsockopt(fd, SOL_SOCKET, Self.rxqOverflow, &on, socklen_t(MemoryLayout<Int32>.size))
            // Trains (a sender's UDP GSO, or the device's GRO) arrive whole,
            // with their segment size, and are split here: one skb, one
            // queue entry and one copy a train, not a datagram. Where the
            // kernel has no UDP_GRO, datagrams arrive one by one, as before.
            _ = setsockopt(fd, Self.solUDP, Self.udpGRO, &on, socklen_t(MemoryLayout<Int32>.size))
            do { try DualStackSocket.bind(descriptor, port: port, dualStack: dualStack, what: "UDP") } catch where error.errno == EADDRINUSE && fallBack && port != 0 {
                try DualStackSocket.bind(descriptor, port: 0, dualStack: dualStack, what: "UDP")
            }
            self.port = try DualStackSocket.boundPort(of: descriptor)
        } catch {
            descriptor.close()
            throw error
        }
        self.descriptor = descriptor
        self.dualStack = dualStack
    }

    /// `SO_RXQ_OVFL` (asm-generic/socket.h): each datagram read then says
    /// how many the socket has dropped so far for want of room.
    static let rxqOverflow: Int32 = 40

    /// Reads the datagrams that wait, up to the batch's capacity, into
    /// `batch`'s slots `0..<count` (each slot's length, sender and control
    /// data: ``MessageBatch``; a slot may hold a train, ``segmentSize(of:in:)``),
    /// never waiting: how many (0: none waits), and
    /// how many datagrams the kernel has dropped at this socket so far (its
    /// buffer was full), as the last one read said (nil: it did not say).
    /// An error the socket reports from an earlier send (`ECONNREFUSED`
    /// from an ICMP answer) is read past.
    public func receive(into batch: MessageBatch) -> (count: Int, kernelDropped: UInt32?) {
        while true {
            switch batch.receive(from: descriptor, names: true, control: true) {
            case .received(let count):
                return (count, count > 0 ? batch.controlValue(count - 1, level: SOL_SOCKET, type: Self.rxqOverflow) : nil)
            case .failed(let code) where code == ECONNREFUSED || code == EHOSTUNREACH || code == ENETUNREACH:
                continue
            case .none, .failed:
                return (0, nil)
            }
        }
    }

    /// Sends `batch`'s prepared datagrams `range` (``MessageBatch/prepare(_:length:to:)``),
    /// as trains (UDP GSO, ``MessageBatch/sendTrains(_:on:)``) when `trains`.
    public func send(_ batch: MessageBatch, _ range: Range<Int>, trains: Bool) -> MessageBatch.SendOutcome {
        trains ? batch.sendTrains(range, on: descriptor) : batch.send(range, on: descriptor)
    }

    /// `SOL_UDP` and its `UDP_GRO` option (linux/udp.h).
    static let solUDP: Int32 = 17
    static let udpGRO: Int32 = 104

    /// The segment size of message `index` of `batch`, when it is a train
    /// (several datagrams of that size, the last maybe shorter, back to
    /// back); nil when it is one datagram.
    public static func segmentSize(of index: Int, in batch: MessageBatch) -> Int? {
        batch.controlValue(index, level: solUDP, type: udpGRO).map { Int($0) }.flatMap { $0 > 0 && $0 < batch.length(index) ? $0 : nil }
    }

    /// Closes the socket.
    public func close() { descriptor.close() }
}
