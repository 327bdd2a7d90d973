/// `downloads`: a page of one folder in the download directory, in name
/// order (bytewise).
public struct DownloadsResult: Codable, Sendable, Equatable {
    /// The folder listed, relative to the caller's download directory
    /// (`""` for the directory itself).
    public var folder: String
    /// The entries of the page.
    public var entries: [DownloadEntry]
    /// How many entries the page leaves out after it (0: the folder ends
    /// here).
    public var entriesOmitted: Int

    /// Creates it.
    public init(folder: String, entries: [DownloadEntry], entriesOmitted: Int) {
        self.folder = folder
        self.entries = entries
        self.entriesOmitted = entriesOmitted
    }
}
