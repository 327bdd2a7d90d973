import PeerProtocol

/// A connected peer's paths in words, as `peerctl peer` and the desktop
/// app's detail both say them: where its file and stream bytes go, and
/// its datagram path with the round trip measured on it.
package enum PeerPathText {
    /// Where a peer's file and stream bytes go, in one line.
    package static func bulk(_ info: BulkPathInfo) -> String {
        switch info.path {
        case BulkPathInfo.lane: "lane (a connection of its own beside the session)"
        case BulkPathInfo.opening: "opening a lane (files and streams wait, at most 5 s)"
        default: "session stream" + (info.reason.map { ": \($0)" } ?? "")
        }
    }

    /// A peer's datagram path in one line: its state, round trip and counts.
    package static func datagrams(_ info: DatagramInfo) -> String {
        var words = info.path
        if let trip = info.roundTripMs { words += ", round trip \(trip) ms" }
        if let port = info.port { words += ", UDP port \(port)" }
        words += "; sent \(info.sent), received \(info.received)"
        let dropped = info.dropped.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }
        if !dropped.isEmpty { words += ", dropped: " + dropped.joined(separator: ", ") }
        return words
    }

    /// The round trip in words ("0.41 ms"; whole milliseconds from 10),
    /// or nil when none is measured.
    package static func roundTrip(_ info: DatagramInfo?) -> String? {
        guard let trip = info?.roundTripMs else { return nil }
        return trip < 10 ? "\((trip * 100).rounded() / 100) ms" : "\(Int(trip.rounded())) ms"
    }
}
