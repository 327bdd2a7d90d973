/// Which transfer and stream messages travel on the bulk lane
/// (docs/protocol.md §12, "What goes on the lane").
extension BulkMessage {
    /// Whether the side sending a flow's bytes sends this message on the
    /// lane once the lane is up: the bytes (`chunk`, `streamData`), what
    /// must come after them in order (`block`, `fileEnd`, `streamEnd`),
    /// and a default-app stream's `streamOpen`, which its bytes may follow
    /// at once (a file's bytes wait for its `answer` instead). Everything
    /// else (offers, answers, credit, cancels, resets, `transferDone`, and
    /// all of an app's stream, opened in `appFlow`) stays on the session.
    /// On the lane, anything else is a protocol error.
    package var ridesLane: Bool {
        switch self {
        case .chunk, .block, .fileEnd, .streamOpen, .streamData, .streamEnd: true
        case .offer, .answer, .transferDone, .cancel, .credit, .streamReset: false
        }
    }
}
