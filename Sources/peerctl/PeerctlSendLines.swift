import FoundationEssentials
import Glibc
import PeerKit
import PeerSystem
import PeerTools

/// `peerctl send PEER - --lines` toward a connected peer: the lines go
/// through message channels opened for sending alone (issue 25, point 4),
/// as they are read, many per system call, with no JSON and no base64 on
/// the way. The peer's programs see the same messages as from `send`. An
/// empty line cannot travel in a channel (a message there has at least one
/// byte): it ends the channel, goes as a plain `send`, and a new channel
/// carries the rest, so the order holds.
extension PeerctlCommands {
    /// Sends standard input's lines to `peer`; nil when the channel was
    /// refused before any line was read (the caller then sends them as
    /// plain requests).
    func sendLinesOverChannels(to peer: PeerSnapshot) throws(ControlClientError) -> Int32? {
        var lines = LineReader(descriptor: 0)
        var sent = 0, bytes = 0
        while true {
            var blank = false
            var started = false
            do {
                let info = try ChannelSender.run(on: client, peer: peer.id.uuidString, app: app) { send in
                    started = true
                    while let line = lines.next() {
                        if line.isEmpty {
                            blank = true
                            return
                        }
                        try send(line)
                        sent += 1
                        bytes += line.count
                    }
                }
                if info.state != "closed" {
                    printError("the channel to '\(peer.name)' was reset: \(info.detail ?? "no reason given"); \(info.acknowledged) of its \(info.sent) messages reached it")
                    return 1
                }
            } catch let error as ControlClientError {
                if !started && sent == 0 && !blank { return nil }
                throw error
            } catch {
                throw .transport("\(error)")
            }
            guard blank else { break }
            _ = try client.call(.send, params: scoped(ControlParams(peer: peer.id.uuidString, data: "")))
            sent += 1
        }
        emit("sent \(sent) message\(sent == 1 ? "" : "s") (\(bytes) bytes) to '\(TerminalText.escape(peer.name))'")
        return 0
    }
}

/// Standard input cut into lines as it is read, in 64 KiB reads: what
/// `--lines` makes messages of. A last line without a newline is a line;
/// input with no bytes at all is one empty line (as `send -` sends one
/// empty message).
struct LineReader {
    private let descriptor: Int32
    private var buffer: [UInt8] = []
    private var start = 0
    private var ended = false
    private var readAny = false

    /// Lines from `descriptor`.
    init(descriptor: Int32) { self.descriptor = descriptor }

    /// The next line, without its newline; nil at the end.
    mutating func next() -> [UInt8]? {
        while true {
            if let newline = buffer[start...].firstIndex(of: UInt8(ascii: "\n")) {
                let line = Array(buffer[start..<newline])
                start = newline + 1
                return line
            }
            if ended {
                defer { buffer = []; start = 0 }
                if start < buffer.count { return Array(buffer[start...]) }
                if !readAny {
                    readAny = true
                    return []
                }
                return nil
            }
            if start > 0 {
                buffer.removeFirst(start)
                start = 0
            }
            var chunk = [UInt8](repeating: 0, count: 64 * 1024)
            let count = read(descriptor, &chunk, chunk.count)
            if count < 0 && errno == EINTR { continue }
            if count <= 0 {
                ended = true
                continue
            }
            readAny = true
            buffer += chunk[0..<count]
        }
    }
}
