/// A message of the data plane: file transfers and byte streams
/// (docs/protocol.md §8). It travels inside a ``WireMessage`` like any
/// other, only on an accepted session that is not for pairing.
package import PeerProtocol
package enum BulkMessage: Equatable, Sendable {
    /// The sender offers files: a part of the manifest (`more` on every
    /// part but the last), with the whole offer's totals on each part.
    /// Files are numbered 0, 1, … across the parts, in order.
    case offer(FlowID, more: Bool, totalFiles: UInt32, totalBytes: UInt64, files: [OfferedFile])
    /// The receiver's answer: a part of it (`more` on every part but the
    /// last). A file not named is declined.
    case answer(FlowID, more: Bool, files: [FileAnswer])
    /// File bytes: `bytes` of file `file` starting at `offset`.
    case chunk(FlowID, file: UInt32, offset: UInt64, bytes: [UInt8])
    /// Block `block` of file `file` is complete; its BLAKE2b-256 hash.
    case block(FlowID, file: UInt32, block: UInt32, hash: [UInt8])
    /// File `file` is complete; the BLAKE2b-256 hash of its block hashes.
    case fileEnd(FlowID, file: UInt32, hash: [UInt8])
    /// The receiver has every accepted file in place.
    case transferDone(FlowID)
    /// Either side ends a transfer.
    case cancel(FlowID, reason: FlowEndReason, text: String)
    /// The receiver of a flow's bytes lets the sender send `bytes` more.
    case credit(FlowID, bytes: UInt32)
    /// Opens a named two-way byte stream.
    case streamOpen(FlowID, name: String)
    /// Stream bytes, in order.
    case streamData(FlowID, bytes: [UInt8])
    /// The sender will send no more on the stream (a half-close).
    case streamEnd(FlowID)
    /// Either side ends a stream at once, both ways.
    case streamReset(FlowID, reason: FlowEndReason, text: String)

    /// The flow the message belongs to.
    package var flow: FlowID {
        switch self {
        case .offer(let id, _, _, _, _), .answer(let id, _, _), .chunk(let id, _, _, _), .block(let id, _, _, _), .fileEnd(let id, _, _),
             .transferDone(let id), .cancel(let id, _, _), .credit(let id, _), .streamOpen(let id, _), .streamData(let id, _),
             .streamEnd(let id), .streamReset(let id, _, _):
            return id
        }
    }
}

/// The receiver's answer for one file of an offer.
package struct FileAnswer: Equatable, Sendable {
    /// The file's number in the offer.
    package var file: UInt32
    /// Accepted, declined or refused.
    package var verdict: FileVerdict
    /// For an accepted file, the first block to send: the receiver has
    /// every block before it verified (0 for a fresh file).
    package var firstBlock: UInt32

    /// An answer.
    package init(file: UInt32, verdict: FileVerdict, firstBlock: UInt32 = 0) {
        self.file = file
        self.verdict = verdict
        self.firstBlock = firstBlock
    }
}
