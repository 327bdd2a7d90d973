/// One file of a `fetch`: copied into the descriptor the client gave for
/// it (and then removed from the download directory, unless `keep`), or
/// why not.
public struct FetchedFile: Codable, Sendable, Equatable {
    /// The path asked for, relative to the folder.
    public var path: String
    /// Bytes copied (absent on failure).
    public var size: Int64?
    /// The landed file's permission bits, for the client to set on its
    /// copy (peerd cannot: the copy is the client's).
    public var mode: UInt32?
    /// Its modification time, seconds since the epoch, likewise.
    public var mtime: Int64?
    /// Whether peerd removed its own copy (false with `keep`, or when the
    /// removal failed: the file then stays in the download directory).
    public var removed: Bool?
    /// Why this file was not copied (`error` set, the others absent).
    public var error: String?

    /// Creates a result for one file.
    public init(path: String, size: Int64? = nil, mode: UInt32? = nil, mtime: Int64? = nil, removed: Bool? = nil, error: String? = nil) {
        self.path = path
        self.size = size
        self.mode = mode
        self.mtime = mtime
        self.removed = removed
        self.error = error
    }
}
