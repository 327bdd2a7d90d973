package import FoundationEssentials

/// One message waiting in the inbox, without its data (which stays on disk
/// until a client takes it, so a full inbox costs memory only for this).
package struct InboxEntry: Sendable, Equatable {
    /// The inbox id: unique and increasing on this host, across restarts.
    package var id: UInt64
    /// The sender's peer id (32 lowercase hex characters).
    package var peerID: String
    /// When this daemon stored it.
    package var received: Date
    /// The data's size in bytes.
    package var size: Int
    /// Where its record starts in the inbox file.
    package var offset: Int
    /// Its place in the sender's durable queue, if it came with one
    /// (feature `once`).
    package var tag: QueueTag?

    /// Creates an entry.
    package init(id: UInt64, peerID: String, received: Date, size: Int, offset: Int, tag: QueueTag? = nil) {
        self.id = id
        self.peerID = peerID
        self.received = received
        self.size = size
        self.offset = offset
        self.tag = tag
    }

    /// The bytes its record takes on disk (what the inbox limit counts).
    package var recordSize: Int { InboxFileCodec.recordSize(dataCount: size) }
}
