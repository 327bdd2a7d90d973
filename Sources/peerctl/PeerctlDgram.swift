import FoundationEssentials
import Glibc
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

    /// Each line of stdin (without its newline) is one datagram, through
    /// PeerKit's datagram socket; each waits for room, so none is dropped here.
    private func dgramSendLines(_ selector: String) throws(ControlClientError) -> Int32 {
        let peer = try lookUp(selector).id
        client.responseTimeout = .seconds(365 * 86_400)
        var tooLong = 0
        let result = try client.datagrams(params: scoped(ControlParams())) { socket in
            var pending: [UInt8] = []
            var chunk = [UInt8](repeating: 0, count: 65_536)
            func flush(_ line: ArraySlice<UInt8>) {
                guard line.count <= DatagramRecord.maxData else { return tooLong += 1 }
                _ = try? socket.send(line, to: peer, wait: true)
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
            socket.finishSending()
        }
        if tooLong > 0 { printError("\(tooLong) lines were longer than \(DatagramRecord.maxData) bytes and not sent") }
        if json { emit(PeerctlRenderer.json(result)) }
        if result.refused > 0 { printError("\(result.refused) of \(result.sent + result.refused) datagrams were not sent (the peer not connected, a path not up, or a full socket); see 'peerctl peer \(selector)'") }
        return result.refused == 0 && tooLong == 0 ? 0 : 1
    }

    /// Prints datagrams as they come, `count` of them or until interrupted.
    func dgramRecv(count: Int?) throws(ControlClientError) -> Int32 {
        client.responseTimeout = .seconds(365 * 86_400)
        var received = 0
        var lost: UInt64 = 0
        _ = try client.datagrams(params: scoped(ControlParams())) { socket in
            while count.map({ received < $0 }) ?? true, let datagram = try? socket.receive() {
                received += 1
                if datagram.lost > 0 {
                    lost += UInt64(datagram.lost)
                    if !json { printError("lost \(datagram.lost)") }
                }
                if json {
                    var now = timespec()
                    clock_gettime(CLOCK_REALTIME, &now)
                    let line = DatagramLine(peer: datagram.peer, data: Data(datagram.data).base64EncodedString(), lost: datagram.lost,
                                            time: Double(now.tv_sec) + Double(now.tv_nsec) / 1e9)
                    emit(PeerctlRenderer.json(line))
                } else {
                    writeOut(datagram.data + [0x0A])
                }
            }
            socket.finish()
        }
        if !json { printError("received \(received), lost \(lost)") }
        return 0
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
