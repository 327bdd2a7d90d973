import FoundationEssentials
import Glibc
import PeerCore
import PeerKit
import PeerSystem
import PeerTools

/// The measuring ends of peerbench: each runs inside one lab host (the
/// orchestrator starts it with `ip netns exec`), does one thing, and prints
/// `key=value` words on one line. Wall-clock times are CLOCK_REALTIME, so
/// probes on two hosts of the same machine can be compared.
enum Probes {
    /// Seconds since 1970, to the nanosecond.
    static func wallClock() -> Double {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        return Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
    }

    /// A monotonic time in seconds.
    static func monotonic() -> Double {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
    }

    /// One line on stdout, written at once (the orchestrator may be reading).
    static func say(_ words: String) {
        let bytes = Array((words + "\n").utf8)
        _ = bytes.withUnsafeBytes { write(1, $0.baseAddress, $0.count) }
    }

    // MARK: Message channels

    /// A Unix socket pair of `type` (stream or seqpacket) with 4 MiB buffers
    /// on our end: ours, and the end that goes to peerd.
    static func socketPair(_ type: Int32) throws -> (mine: Int32, theirs: FileDescriptor) {
        var fds: [Int32] = [0, 0]
        guard socketpair(AF_UNIX, type | Int32(SOCK_CLOEXEC.rawValue), 0, &fds) == 0 else {
            throw ProbeError("socketpair: \(String(cString: strerror(errno)))")
        }
        var size: Int32 = 4 << 20
        setsockopt(fds[0], SOL_SOCKET, SO_SNDBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        setsockopt(fds[0], SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        return (fds[0], FileDescriptor(rawValue: fds[1]))
    }

    /// Opens a channel to `peer` through the daemon at `socket` (for `app`,
    /// registered first on the same connection, or the default app) and
    /// runs `body` on this end while it is open; returns the daemon's answer.
    static func withChannel(socket: String, peer: String, app: String? = nil, _ body: (Int32) -> Void) throws -> ChannelInfo {
        let (mine, theirs) = try socketPair(Int32(SOCK_STREAM.rawValue))
        let client = try ControlClient(path: socket)
        client.responseTimeout = .seconds(600)
        defer { close(mine) }
        var params = ControlParams(peer: peer)
        if let app {
            var register = ControlParams()
            register.app = app
            _ = try client.call(.register, params: register)
            params.app = app
        }
        return try client.call(.channel, params: params, descriptors: [theirs], sent: {
            theirs.close()
            body(mine)
        })
    }

    /// `channel-send`: writes `count` messages of `size` bytes, ends its
    /// side, and waits until the peer acknowledged them all.
    static func channelSend(socket: String, peer: String, count: Int, size: Int, app: String? = nil) throws {
        var start = 0.0
        let info = try withChannel(socket: socket, peer: peer, app: app) { fd in
            // Each message starts with its number (8 bytes, big-endian), so the receiver can check the order.
            var frame: [UInt8] = []
            ChannelFraming.appendPrefix(size, to: &frame)
            frame += [UInt8](repeating: 0x5A, count: size)
            let perWrite = max(1, 65536 / frame.count)
            var batch = Array([[UInt8]](repeating: frame, count: perWrite).joined())
            start = wallClock()
            var number: UInt64 = 0
            var left = count
            while left > 0 {
                let now = min(left, perWrite)
                for slot in 0..<now where size >= 8 {
                    number += 1
                    for byte in 0..<8 { batch[slot * frame.count + 4 + byte] = UInt8(truncatingIfNeeded: number >> (8 * UInt64(7 - byte))) }
                }
                guard writeAll(fd, batch, count: now * frame.count) else { return }
                left -= now
            }
            shutdown(fd, Int32(SHUT_WR))
        }
        say("start=\(start) end=\(wallClock()) sent=\(info.sent) acknowledged=\(info.acknowledged) state=\(info.state)")
    }

    /// `channel-recv`: says `ready`, then reads `count` messages; prints
    /// when the first and the last arrived.
    static func channelReceive(socket: String, peer: String, count: Int, app: String? = nil) throws {
        var first = 0.0, last = 0.0, got = 0
        var reader = ChannelCounter()
        let info = try withChannel(socket: socket, peer: peer, app: app) { fd in
            say("ready")
            var buffer = [UInt8](repeating: 0, count: 256 * 1024)
            while got < count {
                let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
                if n < 0, errno == EINTR { continue }
                guard n > 0 else { return }
                if got == 0 { first = wallClock() }
                got += buffer.withUnsafeBytes { reader.count(UnsafeRawBufferPointer(rebasing: $0[0..<n])) }
            }
            last = wallClock()
            shutdown(fd, Int32(SHUT_WR))   // the end of this side: the daemon answers
        }
        say("first=\(first) last=\(last) received=\(got) inOrder=\(reader.inOrder ? "yes" : "no") state=\(info.state)")
    }

    /// `channel-echo`: says `ready`, then sends back each of `count` messages.
    static func channelEcho(socket: String, peer: String, count: Int) throws {
        _ = try withChannel(socket: socket, peer: peer) { fd in
            say("ready")
            for _ in 0..<count {
                guard let message = readMessage(fd) else { return }
                var frame: [UInt8] = []
                ChannelFraming.appendPrefix(message.count, to: &frame)
                guard writeAll(fd, frame + message, count: frame.count + message.count) else { return }
            }
            shutdown(fd, Int32(SHUT_WR))
        }
    }

    /// `channel-ping`: `count` round trips of one `size`-byte message;
    /// prints the median and p99 in milliseconds.
    static func channelPing(socket: String, peer: String, count: Int, size: Int) throws {
        var times: [Double] = []
        _ = try withChannel(socket: socket, peer: peer) { fd in
            var frame: [UInt8] = []
            ChannelFraming.appendPrefix(size, to: &frame)
            frame += [UInt8](repeating: 0x33, count: size)
            for _ in 0..<count {
                let start = monotonic()
                guard writeAll(fd, frame, count: frame.count), readMessage(fd) != nil else { return }
                times.append((monotonic() - start) * 1000)
            }
            shutdown(fd, Int32(SHUT_WR))
        }
        sayQuantiles(times)
    }

    /// `channel-raw`: writes `hex` as it is (a test of bad frames), ends
    /// its side, and prints the daemon's answer.
    static func channelRaw(socket: String, peer: String, hex: String) throws {
        let bytes = stride(from: 0, to: hex.count - 1, by: 2).compactMap { offset -> UInt8? in
            let start = hex.index(hex.startIndex, offsetBy: offset)
            return UInt8(hex[start..<hex.index(start, offsetBy: 2)], radix: 16)
        }
        let info = try withChannel(socket: socket, peer: peer) { fd in
            _ = writeAll(fd, bytes, count: bytes.count)
            shutdown(fd, Int32(SHUT_WR))
        }
        say("state=\(info.state) sent=\(info.sent) detail=\((info.detail ?? "").replacing(" ", with: "_"))")
    }

    /// Prints the median, p99 and largest of `times` (milliseconds).
    static func sayQuantiles(_ times: [Double]) {
        let sorted = times.sorted()
        say("median=\(BenchSummary.quantile(sorted, 0.5)) p99=\(BenchSummary.quantile(sorted, 0.99)) max=\(sorted.last ?? 0) count=\(sorted.count)")
    }

    /// `channel-ping-until`: a round trip of `size` bytes every 20 ms until
    /// `stopFile` exists (the latency of small messages beside bulk work).
    static func channelPingUntil(socket: String, peer: String, stopFile: String, size: Int) throws {
        var times: [Double] = []
        var sentAt: [Double] = []
        let began = monotonic()
        _ = try withChannel(socket: socket, peer: peer) { fd in
            say("ready")
            var frame: [UInt8] = []
            ChannelFraming.appendPrefix(size, to: &frame)
            frame += [UInt8](repeating: 0x33, count: size)
            while access(stopFile, F_OK) != 0 {
                let start = monotonic()
                guard writeAll(fd, frame, count: frame.count), readMessage(fd) != nil else { return }
                times.append((monotonic() - start) * 1000)
                sentAt.append(start - began)
                usleep(20_000)
            }
            shutdown(fd, Int32(SHUT_WR))
        }
        sayQuantiles(times)
        // When the slowest came, in seconds from the first: to tell the
        // start of a transfer, its middle and its end apart in a profile.
        let slowest = times.indices.sorted { times[$0] > times[$1] }.prefix(3)
        say("slowest=" + slowest.map { "\((times[$0] * 100).rounded() / 100)ms@\((sentAt[$0] * 100).rounded() / 100)s" }.joined(separator: ","))
    }

    /// `wait-found`: says `ready`, then waits for `name` to be listed and
    /// not lost; prints when (wall clock).
    static func waitFound(socket: String, name: String) throws {
        let client = try ControlClient(path: socket)
        _ = try client.call(.subscribe)
        say("ready")
        let deadline = ContinuousClock.now + .seconds(30)
        while true {
            let (event, _) = try client.nextEvent(deadline: deadline)
            if let row = event.peer, row.name == name, !row.lost, event.type == .peerFound || event.type == .peerUpdated {
                return say("found=\(wallClock())")
            }
        }
    }

    // MARK: Sessions

    /// `setup`: `count` times, disconnects from `peer` (paired, auto-accepted
    /// there), then invites it and times invite to connected, in ms.
    static func setup(socket: String, peer: String, count: Int) throws {
        let client = try ControlClient(path: socket)
        _ = try client.call(.subscribe)
        var times: [Double] = []
        for _ in 0..<count {
            if (try? client.call(.disconnect, params: ControlParams(peer: peer))) != nil {
                try waitForState(client, peer: peer, .notConnected)
            }
            let start = monotonic()
            _ = try client.call(.invite, params: ControlParams(peer: peer))
            try waitForState(client, peer: peer, .connected)
            times.append((monotonic() - start) * 1000)
        }
        say("times=" + times.map { String($0) }.joined(separator: ","))
    }

    /// `connect`: a session with `peer`, inviting it if there is none.
    static func connect(socket: String, peer: String) throws {
        let client = try ControlClient(path: socket)
        _ = try client.call(.subscribe)
        let row = try client.call(.peer, params: ControlParams(peer: peer)).peer
        guard row.state != .connected else { return say("state=connected") }
        if row.state == .notConnected { _ = try client.call(.invite, params: ControlParams(peer: peer)) }
        try waitForState(client, peer: peer, .connected)
        say("state=connected")
    }

    private static func waitForState(_ client: ControlClient, peer: String, _ state: ConnectionState) throws {
        let deadline = ContinuousClock.now + .seconds(10)
        while true {
            let (event, _) = try client.nextEvent(deadline: deadline)
            if event.type == .stateChanged, let row = event.peer, row.name == peer || row.id.uuidString.lowercased().hasPrefix(peer.lowercased()),
               row.state == state { return }
        }
    }

    // MARK: Bytes

    /// Writes the first `count` bytes of `bytes`, whatever it takes; false if the descriptor fails.
    static func writeAll(_ fd: Int32, _ bytes: [UInt8], count: Int) -> Bool {
        var done = 0
        while done < count {
            let n = bytes.withUnsafeBytes { write(fd, $0.baseAddress! + done, count - done) }
            if n < 0, errno == EINTR { continue }
            guard n > 0 else { return false }
            done += n
        }
        return true
    }

    /// Reads exactly `count` bytes into `buffer`; false at the end or on an error.
    static func readExactly(_ fd: Int32, _ buffer: inout [UInt8], _ count: Int) -> Bool {
        var done = 0
        while done < count {
            let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress! + done, count - done) }
            if n < 0, errno == EINTR { continue }
            guard n > 0 else { return false }
            done += n
        }
        return true
    }

    /// One framed message from a channel (blocking).
    static func readMessage(_ fd: Int32) -> [UInt8]? {
        var prefix = [UInt8](repeating: 0, count: ChannelFraming.prefixLength)
        guard readExactly(fd, &prefix, prefix.count) else { return nil }
        let length = prefix.withUnsafeBytes { ChannelFraming.messageLength(prefix: $0) }
        var message = [UInt8](repeating: 0, count: length)
        guard readExactly(fd, &message, length) else { return nil }
        return message
    }
}

/// A probe that could not do its work.
struct ProbeError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// Counts whole messages in a channel's byte stream without keeping them,
/// and checks that those of 8 bytes or more carry the numbers 1, 2, … in
/// their first 8 bytes (as `channel-send` writes them).
struct ChannelCounter {
    private var prefix: [UInt8] = []
    private var head: [UInt8] = []
    private var skipping = 0
    private var expected: UInt64 = 1
    /// Whether every numbered message came in order.
    private(set) var inOrder = true

    /// The messages that ended within `bytes`.
    mutating func count(_ bytes: UnsafeRawBufferPointer) -> Int {
        var index = 0, done = 0
        while index < bytes.count {
            if skipping > 0 {
                if head.count < 8, let wanted = headWanted {
                    let take = min(wanted - head.count, bytes.count - index)
                    head.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[index..<(index + take)]))
                    if head.count == 8 {
                        if head.reduce(0, { $0 << 8 | UInt64($1) }) != expected { inOrder = false }
                        expected += 1
                    }
                }
                let take = min(skipping, bytes.count - index)
                skipping -= take
                index += take
                if skipping == 0 { done += 1 }
                continue
            }
            prefix.append(bytes[index])
            index += 1
            if prefix.count == ChannelFraming.prefixLength {
                skipping = prefix.withUnsafeBytes { ChannelFraming.messageLength(prefix: $0) }
                headWanted = skipping >= 8 ? 8 : nil
                head.removeAll(keepingCapacity: true)
                prefix.removeAll(keepingCapacity: true)
            }
        }
        return done
    }

    private var headWanted: Int?
}
