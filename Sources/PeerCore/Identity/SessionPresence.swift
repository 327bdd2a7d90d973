package import FoundationEssentials
package import PeerProtocol

/// What a row says about presence when mDNS is not the only witness.
///
/// A row made for a peer that connected to us before (or without) being
/// discovered has no endpoints. Its session is then the only sign of the
/// peer: while the session lives the row is present and seen now; once it
/// ends the row is `lost`, last seen when the session ended. Rows with
/// endpoints keep mDNS's word. Every row shows its live session's address.
package enum SessionPresence {
    /// `row` as clients see it, given its live session's remote address
    /// (nil for none) and when its last session ended (nil for never).
    package static func apply(to row: PeerSnapshot, sessionAddress: String?, lastSessionEnd: Date?, now: Date) -> PeerSnapshot {
        var row = row
        row.session = sessionAddress
        guard row.endpoints.isEmpty else { return row }
        if sessionAddress != nil {
            row.lost = false
            row.lastSeen = now
        } else {
            row.lost = true
            if let end = lastSessionEnd, end > row.lastSeen { row.lastSeen = end }
        }
        return row
    }
}
