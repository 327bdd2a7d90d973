/// Decides whether a batch of ``NetworkChange``s means the network may have
/// come back: a watched link started running, or gained an address. Losses
/// never count (keepalives find dead sessions), and a link seen for the
/// first time already running counts, since its earlier state is unknown.
package struct LinkStateTracker: Sendable {
    private var running: [Int32: Bool] = [:]
    private let watched: Set<Int32>

    /// Tracks the interfaces in `watched`, or every interface when empty.
    package init(watched: Set<Int32> = []) {
        self.watched = watched
    }

    /// Applies `changes`; true when any of them is a gain.
    package mutating func apply(_ changes: [NetworkChange]) -> Bool {
        var gained = false
        for change in changes {
            switch change {
            case let .link(index, isRunning):
                guard isWatched(index) else { continue }
                if isRunning && running[index] != true { gained = true }
                running[index] = isRunning
            case let .linkRemoved(index):
                running[index] = nil
            case let .addressAdded(index):
                if isWatched(index) { gained = true }
            case .addressRemoved:
                break
            case .overrun:
                gained = true
            }
        }
        return gained
    }

    private func isWatched(_ index: Int32) -> Bool { watched.isEmpty || watched.contains(index) }
}
