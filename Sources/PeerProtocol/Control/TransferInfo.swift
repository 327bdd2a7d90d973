import FoundationEssentials

/// One transfer as clients see it: in `transfers`, in the answers to
/// `sendFile`, `acceptTransfer`, `declineTransfer` and `cancelTransfer`,
/// and in the transfer events (docs/control-protocol.md, "Transfers").
public struct TransferInfo: Codable, Sendable, Equatable {
    /// The transfer id: 32 hexadecimal digits, the same on both hosts.
    public var id: String
    /// `send` or `receive`.
    public var direction: TransferDirection
    /// The other peer's UUID.
    public var peer: UUID
    /// The other peer's display name.
    public var name: String
    /// Where it stands.
    public var state: TransferState
    /// Files in the offer.
    public var totalFiles: Int
    /// Bytes in the offer.
    public var totalBytes: Int64
    /// Files accepted (0 until the answer).
    public var acceptedFiles: Int
    /// Bytes of the accepted files.
    public var acceptedBytes: Int64
    /// Files done.
    public var filesDone: Int
    /// Bytes of the accepted files done (sent and acknowledged, or
    /// received and verified), counting those a resume did not need again.
    public var bytes: Int64
    /// File bytes that crossed the wire for it so far, every session
    /// counted (sent, or received): with resumes, more than `bytes` can say.
    public var wireBytes: Int64 = 0
    /// Receiving: bytes that arrived before a resume but past the last
    /// verified block, so they had to come again (under one block per
    /// file each time the transfer resumes).
    public var resentBytes: Int64 = 0
    /// Bytes a second, recently.
    public var rate: Double
    /// Seconds left at that rate; absent while unknown.
    public var eta: Double?
    /// Why it failed (`failed`, `cancelled`, `declined`).
    public var reason: FlowEndReason?
    /// Words with `reason`.
    public var detail: String?
    /// Receiving: the folder files land in.
    public var directory: String?
    /// A waiting offer: when it is declined as timed out.
    public var expires: Date?
    /// Files with their verdicts: in `transferOffered` and for an ended
    /// transfer, a summary (the first 16 files, at most 4 KiB of names);
    /// in `transfers` asked for one transfer, a page (`offset`, `max`).
    public var files: [TransferFileInfo]?
    /// How many files of the transfer `files` leaves out (absent when it
    /// lists them all): page through them with `transfers` and `offset`.
    public var filesOmitted: Int?
    /// The app whose transfer it is (issue 23); absent for the default app's.
    /// Only that app's clients see it, decide it or cancel it.
    public var app: String?
    /// Receiving, once accepted (since 0.4.0): who accepted it: `client`
    /// (a client's `acceptTransfer`), `policy` (`--auto-accept`) or
    /// `quickSave` (the peer's Quick Save rule, `quickSave`).
    public var acceptedBy: String?
    /// Receiving (since 0.4.0): the folder files land in, relative to the
    /// download directory of the transfer's app, for `downloads` and
    /// `fetch` (a client cannot open `directory` itself).
    public var folder: String?

    /// Creates it.
    public init(id: String, direction: TransferDirection, peer: UUID, name: String, state: TransferState, totalFiles: Int, totalBytes: Int64,
                acceptedFiles: Int = 0, acceptedBytes: Int64 = 0, filesDone: Int = 0, bytes: Int64 = 0, rate: Double = 0, eta: Double? = nil,
                reason: FlowEndReason? = nil, detail: String? = nil, directory: String? = nil, expires: Date? = nil,
                files: [TransferFileInfo]? = nil) {
        self.id = id
        self.direction = direction
        self.peer = peer
        self.name = name
        self.state = state
        self.totalFiles = totalFiles
        self.totalBytes = totalBytes
        self.acceptedFiles = acceptedFiles
        self.acceptedBytes = acceptedBytes
        self.filesDone = filesDone
        self.bytes = bytes
        self.rate = rate
        self.eta = eta
        self.reason = reason
        self.detail = detail
        self.directory = directory
        self.expires = expires
        self.files = files
    }
}
