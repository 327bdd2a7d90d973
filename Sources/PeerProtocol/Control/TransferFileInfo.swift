/// One file of a transfer as clients see it.
public struct TransferFileInfo: Codable, Sendable, Equatable {
    /// Its number in the offer (for `acceptTransfer`'s `files`).
    public var index: Int
    /// Its relative path as offered (invalid UTF-8 shown with U+FFFD).
    public var name: String
    /// Bytes.
    public var size: Int64
    /// `pending` (no answer yet), `accepted`, `declined`, or why it was
    /// refused (a ``TransferPathRefusal`` raw value, `duplicate`,
    /// `underAFile`, `badSize`).
    public var verdict: String
    /// Receiving, once the file is in place: its path under the transfer's
    /// `directory` (a ` (1)` suffix when the name was taken).
    public var savedAs: String?

    /// Creates it.
    public init(index: Int, name: String, size: Int64, verdict: String, savedAs: String? = nil) {
        self.index = index
        self.name = name
        self.size = size
        self.verdict = verdict
        self.savedAs = savedAs
    }
}
