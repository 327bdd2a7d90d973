/// How many received files may be written past the page cache at once
/// (issue 44, ``StagedWrites``): each holds a stage of memory while it is
/// received, so the stages are counted per peer and for the host. A file
/// that finds no slot is written through the page cache, more slowly,
/// never refused: one peer's many transfers slow another's at most to
/// that, and never take its last slot. Pure: the shell asks before it
/// maps a stage and gives the slot back when the stage goes.
package struct StageSlots: Sendable, Equatable {
    /// Stages for every peer together (8 MiB at 1 MiB each).
    package static let hostDefault = 8
    /// Stages for one peer: a transfer receives one file at a time, so
    /// two transfers of large files from one peer both go past the cache.
    package static let perPeerDefault = 2

    /// Stages for every peer together.
    package let host: Int
    /// Stages for one peer.
    package let perPeer: Int
    /// The stages each peer holds now (no entry: none).
    package private(set) var held: [String: Int] = [:]

    /// Slots of `perPeer` each and `host` in all.
    package init(perPeer: Int = Self.perPeerDefault, host: Int = Self.hostDefault) {
        (self.perPeer, self.host) = (perPeer, host)
    }

    /// Every stage held now.
    package var total: Int { held.values.reduce(0, +) }

    /// Takes a slot for `peer`; false when its share or the host's is full.
    package mutating func take(peer: String) -> Bool {
        let peerHeld = held[peer, default: 0]
        guard peerHeld < perPeer, total < host else { return false }
        held[peer] = peerHeld + 1
        return true
    }

    /// Gives back a slot `peer` took.
    package mutating func giveBack(peer: String) {
        guard let peerHeld = held[peer] else { return }
        held[peer] = peerHeld > 1 ? peerHeld - 1 : nil
    }
}
