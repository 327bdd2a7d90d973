import FoundationEssentials
import Glibc
import PeerProtocol
import PeerSystem

/// This side of a `datagrams` socket (docs/control-protocol.md,
/// "Datagrams"): its records written and read, one datagram each. The
/// one place a client speaks the record layout: ``PeerDatagrams`` (async)
/// and the synchronous ``ControlClient/datagrams(params:_:)`` (peerctl)
/// both use it, so no program keeps a socket or a layout of its own.
package struct DatagramSocket: Sendable {
    /// The socket: this side of a `SOCK_SEQPACKET` pair.
    package let descriptor: FileDescriptor

    /// A new pair: this side, and the end to hand to the daemon.
    package static func pair() throws(PeerError) -> (mine: DatagramSocket, theirs: FileDescriptor) {
        let (mine, theirs) = try BlockingIO.socketPair(seqPacket: true)
        return (DatagramSocket(descriptor: mine), theirs)
    }

    /// Sends one datagram to `peer`: false when it was dropped here (with
    /// `wait` false and the socket full). With `wait`, it waits for room
    /// (a program reading its input at its own pace loses nothing here).
    package func send(_ data: some Collection<UInt8>, to peer: UUID, wait: Bool) throws(PeerError) -> Bool {
        guard data.count <= DatagramRecord.maxData else {
            throw .daemon(.invalidParams, "a datagram carries at most \(DatagramRecord.maxData) bytes; this one has \(data.count)", field: nil)
        }
        let record = DatagramRecord.send(to: peer, data)
        let flags = Int32(MSG_NOSIGNAL) | (wait ? 0 : Int32(MSG_DONTWAIT))
        while true {
            let sent = record.withUnsafeBytes { Glibc.send(descriptor.rawValue, $0.baseAddress, $0.count, flags) }
            if sent < 0, errno == EINTR { continue }
            if sent < 0, errno != EAGAIN, errno != EWOULDBLOCK { throw .transport("the datagram socket is closed: \(String(cString: strerror(errno)))") }
            return sent == record.count
        }
    }

    /// The next datagram, waiting for it; nil once the daemon ended the socket.
    package func receive() throws(PeerError) -> PeerDatagram? {
        var buffer = [UInt8](repeating: 0, count: DatagramRecord.maxRecord + 1)
        while true {
            let count = buffer.withUnsafeMutableBytes { recv(descriptor.rawValue, $0.baseAddress, $0.count, 0) }
            if count < 0, errno == EINTR { continue }
            if count < 0 { throw .transport("reading datagrams: \(String(cString: strerror(errno)))") }
            guard count > 0 else { return nil }
            guard let record = DatagramRecord.parseReceived(Array(buffer[0..<count])) else { continue }
            return PeerDatagram(peer: record.peer, data: Array(record.data), lost: record.lost)
        }
    }

    /// Says this side sends no more: the daemon answers with its counts.
    package func finishSending() { shutdown(descriptor.rawValue, Int32(SHUT_WR)) }

    /// Ends both directions (the daemon answers with its counts).
    package func finish() { shutdown(descriptor.rawValue, Int32(SHUT_RDWR)) }
}
