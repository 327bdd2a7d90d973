import PeerKit

/// `peerctl fetch --json`: where the files went, and which stayed.
struct FetchReport: Encodable {
    /// One file that stayed in the download directory.
    struct Failure: Encodable {
        let path: String
        let error: String
    }

    let into: String
    let files: Int
    let bytes: Int64
    let saved: [String]
    let failed: [Failure]

    init(summary: FetchSummary, into: String) {
        self.into = into
        files = summary.files
        bytes = summary.bytes
        saved = summary.saved
        failed = summary.failed.map { Failure(path: $0.path, error: $0.error) }
    }
}
