import FoundationEssentials
import Glibc
import PeerCore
import PeerKit
import PeerSystem

/// `dgram send` and `dgram recv`: datagrams, sent now or dropped now
/// (docs/control-protocol.md, "Datagrams").
extension PeerctlCommands {
    /// One datagram through `datagram`, or each stdin line through a
    /// `datagrams` socket (`lines`).
    func dgramSend(_ selector: String, text: String, lines: Bool, fallback: Bool) throws(ControlClientError) -> Int32 {
        if lines { return try dgramSendLines(selector) }
        let data = text == "-" ? readStandardInput() : Array(text.utf8)
        var params = scoped(ControlParams(peer: selector))
        params.data = Data(data).base64EncodedString()
        params.fallback = fallback ? true : nil
        let result = try client.call(.datagram, params: params)
        if json {
            emit(PeerctlRenderer.json(result))
        } else if !result.sent {
            printError("the datagram was dropped: \(result.dropped ?? "?")\(result.dropped == DatagramDrop.noPath.rawValue ? " (the peer has not said its datagram port yet; try again in a moment)" : "")")
        }
        return result.sent ? 0 : 1
    }

    /// Each line of stdin (without its newline) is one datagram.
    private func dgramSendLines(_ selector: String) throws(ControlClientError) -> Int32 {
        let peer = try lookUp(selector).id
        let ours = try seqPacketPair()
        client.responseTimeout = .seconds(365 * 86_400)
        var tooLong = 0
        let result = try client.call(.datagrams, params: scoped(ControlParams()), descriptors: [ours.theirs], sent: {
            ours.theirs.close()
            var pending: [UInt8] = []
            var chunk = [UInt8](repeating: 0, count: 65_536)
            func flush(_ line: ArraySlice<UInt8>) {
                guard line.count <= DatagramBody.maxData else { return tooLong += 1 }
                let record = DatagramRecord.send(to: peer, line)
                _ = record.withUnsafeBytes { Glibc.send(ours.mine.rawValue, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            }
            while true {
                let count = read(0, &chunk, chunk.count)
                if count < 0, errno == EINTR { continue }
                if count <= 0 { break }
                pending += chunk[0..<count]
                var start = pending.startIndex
                while let newline = pending[start...].firstIndex(of: 0x0A) {
                    flush(pending[start..<newline])
                    start = newline + 1
                }
                pending.removeSubrange(..<start)
            }
            if !pending.isEmpty { flush(pending[...]) }
            // The end of our records: peerd answers with the counts.
            shutdown(ours.mine.rawValue, Int32(SHUT_WR))
        })
        ours.mine.close()
        if tooLong > 0 { printError("\(tooLong) lines were longer than \(DatagramBody.maxData) bytes and not sent") }
        if json { emit(PeerctlRenderer.json(result)) }
        if result.refused > 0 { printError("\(result.refused) of \(result.sent + result.refused) datagrams were not sent (the peer not connected, a path not up, or a full socket); see 'peerctl peer \(selector)'") }
        return result.refused == 0 && tooLong == 0 ? 0 : 1
    }

    /// Prints datagrams as they come, `count` of them or until interrupted.
    func dgramRecv(count: Int?) throws(ControlClientError) -> Int32 {
        let ours = try seqPacketPair()
        client.responseTimeout = .seconds(365 * 86_400)
        var received = 0
        var lost: UInt64 = 0
        let result = try client.call(.datagrams, params: scoped(ControlParams()), descriptors: [ours.theirs], sent: {
            ours.theirs.close()
            var buffer = [UInt8](repeating: 0, count: DatagramRecord.maxRecord + 1)
            while count.map({ received < $0 }) ?? true {
                let length = buffer.withUnsafeMutableBytes { Glibc.recv(ours.mine.rawValue, $0.baseAddress, $0.count, 0) }
                if length < 0, errno == EINTR { continue }
                guard length > 0, let record = DatagramRecord.parseReceived(Array(buffer[0..<length])) else { break }
                received += 1
                if record.lost > 0 {
                    lost += UInt64(record.lost)
                    if !json { printError("lost \(record.lost)") }
                }
                if json {
                    var now = timespec()
                    clock_gettime(CLOCK_REALTIME, &now)
                    let line = DatagramLine(peer: record.peer, data: Data(record.data).base64EncodedString(), lost: record.lost,
                                            time: Double(now.tv_sec) + Double(now.tv_nsec) / 1e9)
                    emit(PeerctlRenderer.json(line))
                } else {
                    writeOut(Array(record.data) + [0x0A])
                }
            }
            shutdown(ours.mine.rawValue, Int32(SHUT_RDWR))
        })
        ours.mine.close()
        if !json { printError("received \(received), lost \(lost)") }
        _ = result
        return 0
    }

    /// A `SOCK_SEQPACKET` pair: ours, and the end for peerd.
    private func seqPacketPair() throws(ControlClientError) -> (mine: FileDescriptor, theirs: FileDescriptor) {
        var pair: [Int32] = [0, 0]
        guard socketpair(AF_UNIX, Int32(SOCK_SEQPACKET.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &pair) == 0 else {
            throw .transport("socketpair: \(String(cString: strerror(errno)))")
        }
        return (FileDescriptor(rawValue: pair[0]), FileDescriptor(rawValue: pair[1]))
    }
}

/// One line of `dgram recv --json`.
struct DatagramLine: Encodable {
    /// The sender's UUID.
    let peer: UUID
    /// The data, base64.
    let data: String
    /// Datagrams lost just before this one (the reader was behind).
    let lost: UInt32
    /// When peerctl read it: seconds since the epoch.
    let time: Double
}
