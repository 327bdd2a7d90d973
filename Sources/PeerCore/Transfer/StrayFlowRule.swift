/// What a side does with a transfer or stream message for a flow it does
/// not know: never offered, already ended, or another peer's (issue 21,
/// points 6 and 8; protocol.md §8, "Messages for a flow a side does not
/// know"). Messages that only make sense inside a live transfer are
/// answered with a cancel, so a confused sender stops; those that may
/// cross a flow's end in flight are dropped without a word.
package enum StrayFlowRule: Sendable, Equatable {
    /// Answer `cancel(protocolError, "no such transfer")` under the flow.
    case cancel
    /// Drop it.
    case ignore
    /// Not a stray: an `offer` starts a transfer under any new flow.
    case newFlow

    /// The rule for `message`, whose flow is unknown.
    package static func of(_ message: BulkMessage) -> StrayFlowRule {
        switch message {
        case .offer: return .newFlow
        case .answer, .chunk, .block, .fileEnd: return .cancel
        case .credit, .transferDone, .cancel, .streamOpen, .streamData, .streamEnd, .streamReset: return .ignore
        }
    }

    /// The rule for file bytes (a `chunk` read in place), whose flow is unknown.
    package static let chunk = StrayFlowRule.cancel
    /// The words of the cancel.
    package static let cancelText = "no such transfer"
}
