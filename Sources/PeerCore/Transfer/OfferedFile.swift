/// One file as a transfer offer lists it (issue 12, point 1): its name as
/// sent, size, permission bits and modification time.
package struct OfferedFile: Sendable, Equatable {
    /// The relative path, as bytes off the wire (checked by ``TransferPath``).
    package var name: [UInt8]
    /// Bytes.
    package var size: Int64
    /// Permission bits (only `0o777` are kept: no set-id or sticky bits).
    package var mode: UInt32
    /// Seconds since the epoch.
    package var mtime: Int64

    /// A file of the offer.
    package init(name: [UInt8], size: Int64, mode: UInt32, mtime: Int64) {
        self.name = name
        self.size = size
        self.mode = mode
        self.mtime = mtime
    }
}
