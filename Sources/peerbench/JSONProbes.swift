import FoundationEssentials
import Glibc
import PeerCore
import PeerSystem

/// The JSON path's message rate, for comparison with channels: `send`
/// requests pipelined on one control connection, and a `subscribe` with
/// `take` on the other side counting `message` events.
enum JSONProbes {
    /// A connected control socket.
    static func open(_ path: String) throws -> Int32 {
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        let address = try SocketAddress.unix(path)
        try SocketAddress.withSockaddr(address) { pointer, length throws(SystemError) in
            try Syscall.call("connect", path) { Glibc.connect(fd, pointer, length) }
        }
        return fd
    }

    /// `json-send`: `count` `send` requests of `size` bytes, at most 256
    /// unanswered at a time; a `busy` answer is sent again.
    static func send(socket: String, peer: String, count: Int, size: Int) throws {
        let fd = try open(socket)
        defer { close(fd) }
        let data = Data([UInt8](repeating: 0x5A, count: size)).base64EncodedString()
        let line = Array(#"{"v":1,"id":1,"method":"send","params":{"peer":"\#(peer)","data":"\#(data)"}}"#.utf8) + [10]
        let start = Probes.wallClock()
        var done = 0, lines = LineCounter()
        var buffer = [UInt8](repeating: 0, count: 65536)
        while done < count {
            let batch = min(256, count - done)
            let bytes = Array([[UInt8]](repeating: line, count: batch).joined())
            guard Probes.writeAll(fd, bytes, count: bytes.count) else { throw ProbeError("the daemon closed the connection") }
            var answered = 0, busy = 0
            while answered < batch {
                let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
                guard n > 0 else { throw ProbeError("the daemon closed the connection") }
                let counted = lines.count(buffer[0..<n], marker: Array(#""busy""#.utf8))
                answered += counted.lines
                busy += counted.marked
            }
            done += batch - busy
        }
        Probes.say("start=\(start) end=\(Probes.wallClock()) sent=\(done)")
    }

    /// `json-take`: subscribes with `take` for `peer`'s messages, says
    /// `ready`, and counts `count` `message` events.
    static func take(socket: String, peer: String, count: Int) throws {
        let fd = try open(socket)
        defer { close(fd) }
        let request = Array(#"{"v":1,"id":1,"method":"subscribe","params":{"take":true,"peer":"\#(peer)"}}"#.utf8) + [10]
        guard Probes.writeAll(fd, request, count: request.count) else { throw ProbeError("cannot subscribe") }
        Probes.say("ready")
        var got = 0, first = 0.0, lines = LineCounter()
        var buffer = [UInt8](repeating: 0, count: 256 * 1024)
        while got < count {
            let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            guard n > 0 else { break }
            if first == 0 { first = Probes.wallClock() }
            got += lines.count(buffer[0..<n], marker: Array(#""type":"message""#.utf8)).marked
        }
        Probes.say("first=\(first) last=\(Probes.wallClock()) received=\(got)")
    }
}

/// Counts the lines that end in some bytes, and those of them holding a
/// marker, without keeping them.
struct LineCounter {
    private var matched = 0
    private var marked = false

    /// Lines ended within `bytes`, and how many of them held `marker`.
    mutating func count(_ bytes: ArraySlice<UInt8>, marker: [UInt8]) -> (lines: Int, marked: Int) {
        var lines = 0, withMarker = 0
        for byte in bytes {
            if byte == 10 {
                lines += 1
                if marked { withMarker += 1 }
                marked = false
                matched = 0
                continue
            }
            guard !marked else { continue }
            if byte == marker[matched] {
                matched += 1
                if matched == marker.count { marked = true }
            } else {
                matched = byte == marker[0] ? 1 : 0
            }
        }
        return (lines, withMarker)
    }
}
