import FoundationEssentials
import PeerKit

/// PeerKit's datagrams against a real daemon (Tests/integration/
/// datagram_tests.sh): MPC's `send(_:to:mode: .unreliable)`, a
/// `PeerDatagrams` socket's sends, and its `AsyncSequence` of arrivals.
extension PeerKitProbes {
    /// `peerkit-dgram-recv SOCK COUNT`: opens a `PeerDatagrams`, says
    /// `ready`, and reads COUNT datagrams from it; prints what came.
    static func datagramReceive(socket: String, count: Int) throws {
        try wait {
            let client = try await PeerClient.connect(socket: socket)
            let datagrams = try await client.datagrams()
            Probes.say("ready")
            var texts: [String] = []
            var lost: UInt32 = 0
            for try await datagram in datagrams {
                texts.append(String(decoding: datagram.data, as: UTF8.self))
                lost += datagram.lost
                if texts.count == count { break }
            }
            let counts = try await datagrams.close()
            Probes.say("got=\(texts.count) unreliable=\(texts.filter { $0.hasPrefix("u") }.count) socket=\(texts.filter { $0.hasPrefix("s") }.count) lost=\(lost) answered=\(counts.received)")
        }
    }

    /// `peerkit-dgram-send SOCK PEER COUNT`: COUNT datagrams with
    /// `send(_:to:mode: .unreliable)` (`u1`, `u2`, …), then COUNT through a
    /// `PeerDatagrams` socket (`s1`, …); prints what went.
    static func datagramSend(socket: String, peer name: String, count: Int) throws {
        try wait {
            let client = try await PeerClient.connect(socket: socket)
            let target = try await peer(client, named: name)
            var viaSend = 0
            for number in 1...count where try await client.send(Array("u\(number)".utf8), to: target, mode: .unreliable) { viaSend += 1 }
            let datagrams = try await client.datagrams()
            var viaSocket = 0
            for number in 1...count where try datagrams.send(Array("s\(number)".utf8), to: target) { viaSocket += 1 }
            let counts = try await datagrams.close()
            Probes.say("unreliable=\(viaSend) socket=\(viaSocket) sent=\(counts.sent) refused=\(counts.refused)")
        }
    }
}
