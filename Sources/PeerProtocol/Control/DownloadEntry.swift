/// One entry of a folder in the download directory, as `downloads`
/// lists it: a landed file, or a folder.
public struct DownloadEntry: Codable, Sendable, Equatable {
    /// Its name in the folder listed (one path component).
    public var name: String
    /// `file` or `folder`.
    public var kind: String
    /// A file's size in bytes (a folder: 0).
    public var size: Int64
    /// Its permission bits (`st_mode & 0o777`).
    public var mode: UInt32
    /// Its modification time, seconds since the epoch.
    public var mtime: Int64

    /// The `kind` of a file.
    public static let file = "file"
    /// The `kind` of a folder.
    public static let folder = "folder"

    /// Creates an entry.
    public init(name: String, kind: String, size: Int64, mode: UInt32, mtime: Int64) {
        self.name = name
        self.kind = kind
        self.size = size
        self.mode = mode
        self.mtime = mtime
    }
}
