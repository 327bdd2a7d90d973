/// Who sends next on a session carrying many flows (issue 12, point 6):
/// control traffic and messages first, then bulk flows (file transfers,
/// streams) in turn, each at most one capped frame per turn and only as
/// far as its credit goes. So a keepalive or a 100-byte message waits at
/// most for the frame already on its way, never behind a gigabyte, and a
/// stream whose reader is slow (no credit) holds back only itself.
///
/// Deficit round robin over the bulk flows: on each visit a flow earns one
/// ``quantum`` and sends frames while what it has earned covers them, so
/// the bytes are shared fairly whether a flow's frames are whole or small.
public struct FairScheduler: Sendable, Equatable {
    /// What to send next.
    public enum Pick: Sendable, Equatable {
        /// The next control frame or message.
        case urgent
        /// Up to `bytes` of bulk flow `flow`.
        case bulk(flow: UInt32, bytes: Int)
    }

    /// The largest bulk frame: one full Noise payload (65,535 bytes less
    /// the 16-byte tag).
    public static let maxBulkFrame = 65_519
    /// What a bulk flow earns per turn.
    public static let quantum = FairScheduler.maxBulkFrame

    private struct Flow: Sendable, Equatable {
        var id: UInt32
        var pending: Int
        var credit: Int
        var deficit: Int
        /// Whether it has had its quantum on this visit.
        var earned: Bool
    }

    private var flows: [Flow] = []
    private var next = 0
    /// Control frames and messages waiting.
    public private(set) var urgent = 0

    /// An idle scheduler.
    public init() {}

    /// A control frame or message is waiting.
    public mutating func addUrgent() { urgent += 1 }

    /// Bulk flow `flow` has `bytes` more to send.
    public mutating func queue(_ bytes: Int, on flow: UInt32) {
        if let index = flows.firstIndex(where: { $0.id == flow }) {
            flows[index].pending += bytes
        } else {
            flows.append(Flow(id: flow, pending: bytes, credit: ReceiveWindow.initial, deficit: 0, earned: false))
        }
    }

    /// The peer granted `bytes` more credit to `flow`.
    public mutating func credit(_ bytes: Int, to flow: UInt32) {
        guard let index = flows.firstIndex(where: { $0.id == flow }) else { return }
        flows[index].credit += bytes
    }

    /// The flow ended (finished, cancelled or reset).
    public mutating func remove(_ flow: UInt32) {
        guard let index = flows.firstIndex(where: { $0.id == flow }) else { return }
        flows.remove(at: index)
        if next > index { next -= 1 }
        if next >= flows.count { next = 0 }
    }

    /// What to send now, or nil when nothing can go (no urgent frame, and
    /// every bulk flow is empty or out of credit).
    public mutating func pick() -> Pick? {
        if urgent > 0 {
            urgent -= 1
            return .urgent
        }
        guard !flows.isEmpty else { return nil }
        // Each flow is visited at most twice: once to find it cannot go
        // on, once more after the others.
        for _ in 0..<(2 * flows.count + 1) {
            var flow = flows[next]
            let sendable = min(flow.pending, flow.credit, Self.maxBulkFrame)
            if sendable == 0 {
                // Nothing it can send: it keeps no deficit (classic DRR).
                flow.deficit = 0
                flow.earned = false
                flows[next] = flow
                next = (next + 1) % flows.count
                continue
            }
            if !flow.earned {
                flow.deficit += Self.quantum
                flow.earned = true
            }
            if flow.deficit >= sendable {
                // It stays the current flow while its deficit lasts.
                flow.deficit -= sendable
                flow.pending -= sendable
                flow.credit -= sendable
                flows[next] = flow
                return .bulk(flow: flow.id, bytes: sendable)
            }
            flow.earned = false
            flows[next] = flow
            next = (next + 1) % flows.count
        }
        return nil
    }
}
