import PeerSystem

/// A file being sent, open for as long as anything may still read it:
/// the transfer that holds it, and every job on a session's lane that
/// reads it (``OutgoingTransfer``). The descriptor is closed when the last
/// of them lets go, never under a read still queued, so its number can
/// never be reused for another file while a job would read it.
final class OpenFile: Sendable {
    /// The descriptor; only read from (`pread`, `fstat`) while held.
    let descriptor: FileDescriptor

    /// Takes `descriptor` (it is closed when this goes).
    init(_ descriptor: FileDescriptor) { self.descriptor = descriptor }

    deinit { descriptor.close() }
}
