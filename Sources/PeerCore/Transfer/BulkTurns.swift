/// Whose turn it is on a session's bulk room (issue 12, point 6): the
/// flows that have something to send go round robin, each with at most
/// ``quantum`` bytes per turn, and the first of each round rotates, so a
/// gigabyte transfer and a small stream share a session fairly. Messages
/// and keepalives never wait for a turn: they are queued at once, behind
/// at most the session's bulk high-water mark of frames.
package struct BulkTurns: Sendable, Equatable {
    /// The most bytes one flow sends per turn.
    package static let quantum = 256 << 10
    private var round = 0

    /// A fresh rotation.
    package init() {}

    /// The order for the next round: `flows` rotated by one more each round.
    package mutating func order<Flow>(_ flows: [Flow]) -> [Flow] {
        guard !flows.isEmpty else { return [] }
        let start = round % flows.count
        round &+= 1
        return Array(flows[start...] + flows[..<start])
    }
}
