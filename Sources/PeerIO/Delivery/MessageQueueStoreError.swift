import PeerCore
import PeerSystem

/// Why the message queues could not be opened. peerd refuses to start on
/// either, and changes nothing on disk.
package enum MessageQueueStoreError: Error, Equatable, CustomStringConvertible {
    /// A system call failed.
    case system(SystemError)
    /// A queue file this release cannot read: a newer layout, or a damaged
    /// header. `found` says what was there.
    case unreadable(path: String, found: String)

    /// A sentence for logs and the start-up refusal.
    package var description: String {
        switch self {
        case .system(let error): "\(error)"
        case .unreadable(let path, let found):
            "\(path): \(found); this release reads \(String(decoding: QueueFileCodec.header.dropLast(), as: UTF8.self)) files and carries \(String(decoding: QueueFileCodec.header2.dropLast(), as: UTF8.self)) ones in. Nothing was changed: run the release that wrote it, or move the file away to drop its messages"
        }
    }
}
