/// Which transfer and stream messages travel on the bulk lane
/// (docs/protocol.md §12, "What goes on the lane").
extension BulkMessage {
    /// Whether the side sending a flow's bytes sends this message on the
    /// lane once the lane is up: the bytes (`chunk`, `streamData`) and what
    /// must come after them in order (`block`, `fileEnd`, `streamEnd`).
    /// Everything else (offers, answers, credit, cancels, resets,
    /// `transferDone`) stays on the session, where no bulk byte is ahead
    /// of it. On the lane, anything else is a protocol error.
    package var ridesLane: Bool {
        switch self {
        case .chunk, .block, .fileEnd, .streamData, .streamEnd: true
        case .offer, .answer, .transferDone, .cancel, .credit, .streamOpen, .streamReset: false
        }
    }
}
