/// One file of a `sendFile` request: what the offer says of it. Its
/// descriptor comes with the request line (docs/control-protocol.md,
/// "File descriptors"), in the same order as the entries.
public struct SendFileEntry: Codable, Sendable, Equatable {
    /// The relative path the receiver sees (`dir/sub/file`).
    public var name: String
    /// Bytes (checked against the descriptor).
    public var size: Int64
    /// Permission bits.
    public var mode: UInt32
    /// Modification time, seconds since the epoch.
    public var mtime: Int64

    /// Creates it.
    public init(name: String, size: Int64, mode: UInt32, mtime: Int64) {
        self.name = name
        self.size = size
        self.mode = mode
        self.mtime = mtime
    }
}
