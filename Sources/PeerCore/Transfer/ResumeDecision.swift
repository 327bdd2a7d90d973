/// What a whole incoming offer is (issue 21, points 1.2 and 8): a resume
/// of the transfer held here or remembered on disk, or a new offer. A resume
/// must be the same files (the same manifest hash, ``OfferManifest``);
/// anything else under a known id is decided afresh, never taken as
/// accepted. Pure: the desk gives it the facts and performs the answer.
package import PeerProtocol
package enum ResumeDecision: Sendable, Equatable {
    /// The transfer held in memory, offered again on a new session: answer
    /// it again from what is verified now.
    case reanswer
    /// The same offer again while the held one is in a state that takes no
    /// new answer (offered and waiting for a decision, finished): nothing.
    case ignore
    /// Remembered as accepted (before a restart, or before another offer
    /// took the id for a while), for exactly these files from exactly this
    /// peer: accept the recorded files again, without asking; `replacing`
    /// when a held transfer with other files gives way first.
    case resumeRecorded(files: [Int], replacing: Bool)
    /// A new offer, asked or decided by policy; `replacing` when it takes
    /// the id of a held transfer with other files (that one ends, and its
    /// partial files go).
    case decideAfresh(replacing: Bool)

    /// The transfer held under the offer's id, if any.
    package struct Held: Sendable, Equatable {
        /// Its manifest hash.
        package var manifest: String
        /// Its state.
        package var state: TransferState
        /// A held transfer.
        package init(manifest: String, state: TransferState) {
            self.manifest = manifest
            self.state = state
        }
    }

    /// Decides for an offer from `peerID` whose manifest hashes to
    /// `manifest`, with the transfer `held` under its id and the acceptance
    /// `record` on disk for that id.
    package static func decide(manifest: String, peerID: String, held: Held?, record: AcceptanceRecord?) -> ResumeDecision {
        if let held, held.manifest == manifest {
            return held.state == .interrupted || held.state == .active ? .reanswer : .ignore
        }
        let replacing = held != nil
        if let record, record.binds(peerID: peerID, manifest: manifest) { return .resumeRecorded(files: record.files, replacing: replacing) }
        return .decideAfresh(replacing: replacing)
    }
}
