import Glibc
import PeerProtocol
import PeerSystem

/// A message channel opened for sending alone (docs/control-protocol.md,
/// "Message channels", `receive` and `opened`, since 0.3.0): the blocking
/// path `peerctl send --lines` streams its lines through. The peer's
/// messages keep going where they would without it (`peerctl recv`, the
/// inbox). Nothing is written before the daemon says the channel is open,
/// so a refusal (`notConnected`, `busy`) has consumed nothing.
///
///     let info = try ChannelSender.run(on: client, peer: id, app: nil) { send in
///         try send(Array("hello".utf8))
///     }
package enum ChannelSender {
    /// Frames are gathered up to this many bytes per write.
    static let batch = 64 * 1024

    /// Opens the channel to `peer` (of `app`) on `client`'s connection, then
    /// runs `feed` with a send function once it is open; ends the channel
    /// when `feed` returns and gives the daemon's counts (every message
    /// acknowledged by the peer, or `reset` with why). Throws the daemon's
    /// refusal before `feed` ran, or `feed`'s own error after ending.
    package static func run(on client: ControlClient, peer: String, app: String?,
                            feed: (_ send: ([UInt8]) throws -> Void) throws -> Void) throws -> ChannelInfo {
        var pair: [Int32] = [-1, -1]
        guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &pair) == 0 else {
            throw ControlClientError.transport("socketpair: \(String(cString: strerror(errno)))")
        }
        let mine = FileDescriptor(rawValue: pair[0]), theirs = FileDescriptor(rawValue: pair[1])
        defer { mine.close() }
        var params = ControlParams(peer: peer)
        params.app = app
        params.receive = false
        params.opened = true
        var fed: (any Error)?
        // onEvent runs only inside call(): feed does not outlive this function.
        let info = try withoutActuallyEscaping(feed) { feed in
            try client.call(.channel, params: params, descriptors: [theirs], sent: { theirs.close() }, onEvent: { event in
            guard event.type == .channelOpened, fed == nil else { return }
            var pending: [UInt8] = []
            pending.reserveCapacity(batch + 4)
            do {
                try feed { message in
                    withUnsafeBytes(of: UInt32(message.count).bigEndian) { pending += $0 }
                    pending += message
                    if pending.count >= batch {
                        try write(pending, to: mine)
                        pending.removeAll(keepingCapacity: true)
                    }
                }
                try write(pending, to: mine)
            } catch {
                fed = error
            }
            // The end of our side: the daemon answers once the peer has all.
            shutdown(mine.rawValue, Int32(SHUT_WR))
            })
        }
        if let fed { throw fed }
        return info
    }

    /// Writes all of `bytes`, waiting for room (PeerKit's one write loop).
    private static func write(_ bytes: [UInt8], to fd: FileDescriptor) throws(ControlClientError) {
        if case .failure(let error) = BlockingIO.writeAll(bytes, to: fd) { throw .transport("writing to the channel: \(error)") }
    }
}
