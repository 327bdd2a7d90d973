import FoundationEssentials
import Glibc
import PeerCore
import PeerKit
import PeerSystem
import PeerTools

/// The datagram path's probes (issue 26): a `datagrams` socket's round
/// trips and rate, and a raw UDP ping-pong beside them.
enum DatagramProbes {
    /// Runs `body` with the `datagrams` socket (ours of a SEQPACKET pair)
    /// until it returns, then ends it and gives the daemon's counts.
    static func withDatagrams(socket: String, _ body: (Int32) -> Void) throws -> DatagramsResult {
        let (mine, theirs) = try Probes.socketPair(Int32(SOCK_SEQPACKET.rawValue))
        let client = try ControlClient(path: socket)
        client.responseTimeout = .seconds(600)
        defer { close(mine) }
        return try client.call(.datagrams, params: ControlParams(), descriptors: [theirs], sent: {
            theirs.close()
            body(mine)
            shutdown(mine, Int32(SHUT_RDWR))
        })
    }

    /// The peer's UUID as the daemon at `socket` knows it.
    static func peerID(socket: String, peer: String) throws -> UUID {
        try ControlClient(path: socket).call(.peer, params: ControlParams(peer: peer)).peer.id
    }

    /// Waits up to `seconds` for a record on `fd`: its length, or nil. A
    /// record already waiting is taken without a `poll` (one system call
    /// a record while they come fast).
    static func receive(_ fd: Int32, into buffer: inout [UInt8], seconds: Double) -> Int? {
        let ready = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }
        if ready > 0 { return ready }
        var watch = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        guard poll(&watch, 1, Int32(seconds * 1000)) == 1 else { return nil }
        let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        return count > 0 ? count : nil
    }

    /// `dgram-echo SOCKET SECONDS`: sends each datagram back to its
    /// sender, until nothing came for SECONDS.
    static func echo(socket: String, idle: Int) throws {
        let result = try withDatagrams(socket: socket) { fd in
            say("ready")
            var buffer = [UInt8](repeating: 0, count: DatagramRecord.maxRecord + 1)
            while let count = receive(fd, into: &buffer, seconds: Double(idle)),
                  let record = DatagramRecord.parseReceived(Array(buffer[0..<count])) {
                let reply = DatagramRecord.send(to: record.peer, record.data)
                _ = reply.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, 0) }
            }
        }
        say("echoed=\(result.sent) lost=\(result.lost)")
    }

    /// `dgram-ping SOCKET PEER COUNT SIZE`: COUNT round trips of SIZE
    /// bytes, each waiting at most 1 s (a lost one counts as lost, not as
    /// a time); prints the quantiles in milliseconds and the losses.
    static func ping(socket: String, peer: String, count: Int, size: Int) throws {
        try pingUntil(socket: socket, peer: peer, count: count, stopFile: nil, size: size, every: 0)
    }

    /// `dgram-ping-until SOCKET PEER STOPFILE SIZE`: a round trip every
    /// 20 ms until STOPFILE exists (beside bulk work).
    static func pingUntil(socket: String, peer: String, stopFile: String, size: Int) throws {
        try pingUntil(socket: socket, peer: peer, count: Int.max, stopFile: stopFile, size: size, every: 0.02)
    }

    private static func pingUntil(socket: String, peer: String, count: Int, stopFile: String?, size: Int, every: Double) throws {
        let target = try peerID(socket: socket, peer: peer)
        var times: [Double] = []
        var lost = 0
        _ = try withDatagrams(socket: socket) { fd in
            say("ready")
            var buffer = [UInt8](repeating: 0, count: DatagramRecord.maxRecord + 1)
            var sequence: UInt64 = 0
            while times.count + lost < count, stopFile.map({ access($0, F_OK) != 0 }) ?? true {
                sequence += 1
                var data = withUnsafeBytes(of: sequence.bigEndian) { Array($0) }
                data += [UInt8](repeating: 0x44, count: max(0, size - 8))
                let record = DatagramRecord.send(to: target, data)
                let start = Probes.monotonic()
                _ = record.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, 0) }
                var answered = false
                while let got = receive(fd, into: &buffer, seconds: max(0, 1 - (Probes.monotonic() - start))),
                      let reply = DatagramRecord.parseReceived(Array(buffer[0..<got])) {
                    if reply.data.prefix(8).elementsEqual(data.prefix(8)) {
                        answered = true
                        break
                    }
                }
                if answered { times.append((Probes.monotonic() - start) * 1000) } else { lost += 1 }
                if every > 0 { usleep(useconds_t(every * 1_000_000)) }
            }
        }
        let sorted = times.sorted()
        say("median=\(BenchSummary.quantile(sorted, 0.5)) p99=\(BenchSummary.quantile(sorted, 0.99)) max=\(sorted.last ?? 0) count=\(sorted.count) lost=\(lost)")
    }

    /// `dgram-recv SOCKET SECONDS [PAUSE_US]`: counts datagrams until
    /// nothing came for SECONDS, many records a `recvmmsg`, or pausing
    /// PAUSE_US after each one read alone (a slow reader); prints how many, the losses the records said (`lostSaid`)
    /// and the daemon's own count in its answer (`lost`), and the time from
    /// the first to the last.
    static func count(socket: String, idle: Int, pause: Int = 0) throws {
        var received = 0
        var lostSaid: UInt64 = 0
        var first = 0.0, last = 0.0
        let result = try withDatagrams(socket: socket) { fd in
            say("ready")
            // The record's `lost`, read in place (bytes 17 to 20, big-endian).
            func lost(_ record: UnsafeRawBufferPointer) -> UInt64 {
                record.count >= DatagramRecord.receiveHeader ? UInt64(record[17..<21].reduce(UInt32(0)) { $0 << 8 | UInt32($1) }) : 0
            }
            if pause > 0 {
                var buffer = [UInt8](repeating: 0, count: DatagramRecord.maxRecord + 1)
                while let count = receive(fd, into: &buffer, seconds: Double(idle)) {
                    if received == 0 { first = Probes.monotonic() }
                    received += 1
                    last = Probes.monotonic()
                    lostSaid += buffer.withUnsafeBytes { lost(UnsafeRawBufferPointer(rebasing: $0[0..<count])) }
                    usleep(useconds_t(pause))
                }
                return
            }
            // At full speed, as a client that keeps up would: many records a call.
            let batch = MessageBatch(capacity: 64, slotSize: DatagramRecord.maxRecord + 1)
            let descriptor = FileDescriptor(rawValue: fd)
            while true {
                guard case .received(let count) = batch.receive(from: descriptor, names: false, control: false) else {
                    var watch = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
                    guard poll(&watch, 1, Int32(idle * 1000)) == 1 else { return }
                    continue
                }
                guard count > 0, batch.length(0) > 0 else { return }
                if received == 0 { first = Probes.monotonic() }
                for index in 0..<count where batch.length(index) > 0 {
                    received += 1
                    lostSaid += lost(UnsafeRawBufferPointer(rebasing: batch.slot(index)[0..<min(batch.length(index), batch.slotSize)]))
                }
                last = Probes.monotonic()
            }
        }
        say("received=\(received) lostSaid=\(lostSaid) lost=\(result.lost) answered=\(result.received) first=\(first) last=\(last)")
    }

    /// `dgram-pace SOCKET PEER RATE SECONDS`: datagrams of 100 bytes at
    /// RATE a second for SECONDS; prints the daemon's counts.
    static func pace(socket: String, peer: String, rate: Int, seconds: Int) throws {
        let target = try peerID(socket: socket, peer: peer)
        let record = DatagramRecord.send(to: target, [UInt8](repeating: 0x57, count: 100))
        let result = try withDatagrams(socket: socket) { fd in
            let start = Probes.monotonic()
            var sent = 0
            while Probes.monotonic() - start < Double(seconds) {
                let due = Int((Probes.monotonic() - start) * Double(rate))
                while sent < due {
                    _ = record.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, 0) }
                    sent += 1
                }
                usleep(1_000)
            }
        }
        say("sent=\(result.sent) refused=\(result.refused)")
    }

    /// `dgram-send SOCKET PEER COUNT SIZE`: COUNT datagrams of SIZE bytes
    /// as fast as the socket to the daemon takes them, many records a
    /// `sendmmsg` (it waits when the socket is full: the daemon drops at
    /// the UDP socket, not here); prints the start and the daemon's counts.
    static func blast(socket: String, peer: String, count: Int, size: Int) throws {
        let target = try peerID(socket: socket, peer: peer)
        let record = DatagramRecord.send(to: target, [UInt8](repeating: 0x55, count: size))
        var start = 0.0
        let result = try withDatagrams(socket: socket) { fd in
            // Many records a call, as a client sending fast would (sendmmsg).
            let batch = MessageBatch(capacity: 64, slotSize: record.count)
            for index in 0..<batch.capacity {
                record.withUnsafeBytes { batch.slot(index).copyMemory(from: $0) }
                batch.prepare(index, length: record.count, to: nil)
            }
            let descriptor = FileDescriptor(rawValue: fd)
            // Room for what peerd has not read yet (records wait charged to this end).
            var room: Int32 = 1 << 20
            _ = setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &room, socklen_t(MemoryLayout<Int32>.size))
            start = Probes.monotonic()
            var sent = 0
            while sent < count {
                switch batch.send(0..<min(batch.capacity, count - sent), on: descriptor) {
                case .sent(let taken): sent += taken
                case .wouldBlock:
                    var watch = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
                    _ = poll(&watch, 1, 1_000)
                case .failed: return
                }
            }
        }
        say("start=\(start) sent=\(result.sent) refused=\(result.refused)")
    }

    /// `udp-echo-server PORT`: a raw UDP echo, the reference for the path.
    static func udpEchoServer(port: UInt16) throws {
        let fd = socket(AF_INET, Int32(SOCK_DGRAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        let bound = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) } }
        guard bound == 0 else { throw ProbeError("bind UDP \(port): \(String(cString: strerror(errno)))") }
        say("ready")
        var buffer = [UInt8](repeating: 0, count: 2048)
        while true {
            var from = sockaddr_storage()
            var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
            let count = buffer.withUnsafeMutableBytes { raw in
                withUnsafeMutablePointer(to: &from) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { recvfrom(fd, raw.baseAddress, raw.count, 0, $0, &length) } }
            }
            guard count > 0 else { continue }
            _ = buffer.withUnsafeBytes { raw in
                withUnsafePointer(to: &from) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { sendto(fd, raw.baseAddress, count, 0, $0, length) } }
            }
        }
    }

    /// A UDP socket connected to `host`:`port` (IPv4, as the lab's addresses are).
    private static func udpSocket(connectedTo host: String, port: UInt16) throws -> Int32 {
        let fd = socket(AF_INET, Int32(SOCK_DGRAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        guard inet_pton(AF_INET, host, &address.sin_addr) == 1,
              withUnsafePointer(to: &address, { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) } }) == 0
        else { throw ProbeError("UDP \(host):\(port): \(String(cString: strerror(errno)))") }
        return fd
    }

    /// `udp-ping HOST PORT COUNT SIZE`: raw UDP round trips.
    static func udpPing(host: String, port: UInt16, count: Int, size: Int) throws {
        let fd = try udpSocket(connectedTo: host, port: port)
        var times: [Double] = []
        var lost = 0
        let payload = [UInt8](repeating: 0x66, count: size)
        var buffer = [UInt8](repeating: 0, count: 2048)
        for _ in 0..<count {
            let start = Probes.monotonic()
            _ = payload.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, 0) }
            if receive(fd, into: &buffer, seconds: 1) != nil { times.append((Probes.monotonic() - start) * 1000) } else { lost += 1 }
        }
        let sorted = times.sorted()
        say("median=\(BenchSummary.quantile(sorted, 0.5)) p99=\(BenchSummary.quantile(sorted, 0.99)) max=\(sorted.last ?? 0) count=\(sorted.count) lost=\(lost)")
    }

    /// `udp-flood HOST PORT RATE SECONDS`: forged datagrams (the right
    /// kind and length, random index, counter and bytes) at RATE a second
    /// for SECONDS: what an attacker on the link can send without a key.
    static func udpFlood(host: String, port: UInt16, rate: Int, seconds: Int) throws {
        let fd = try udpSocket(connectedTo: host, port: port)
        var datagram = [UInt8](repeating: 0, count: DatagramHeader.length + 100 + DatagramHeader.tagLength)
        var generator = SystemRandomNumberGenerator()
        for index in datagram.indices { datagram[index] = UInt8.random(in: 0...255, using: &generator) }
        datagram[0] = DatagramHeader.dataKind
        let start = Probes.monotonic()
        var sent = 0
        while Probes.monotonic() - start < Double(seconds) {
            // Paced per millisecond: RATE / 1000 each, then wait for the next.
            let due = Int((Probes.monotonic() - start) * Double(rate))
            while sent < due {
                // A fresh random index and counter each (the body stays random from the start).
                let word = generator.next()
                for index in 0..<8 { datagram[1 + index] = UInt8(truncatingIfNeeded: word >> (8 * UInt64(index))) }
                _ = datagram.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, 0) }
                sent += 1
            }
            usleep(1_000)
        }
        say("sent=\(sent) seconds=\(Probes.monotonic() - start)")
    }

    private static func say(_ words: String) { Probes.say(words) }
}
