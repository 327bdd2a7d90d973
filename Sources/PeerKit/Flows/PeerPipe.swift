import Glibc
import PeerProtocol
import PeerSystem

/// A byte stream to a peer (docs/control-protocol.md, `pipe`;
/// ``PeerClient/pipe(to:name:app:)``): write to ``descriptor`` to send,
/// read it for the peer's bytes, shut its writing half to end your side.
/// It meets the peer's pipe of the same name.
///
///     let pipe = try await client.pipe(to: peer, name: "backup")
///     write(pipe.descriptor.rawValue, bytes, bytes.count)
///     shutdown(pipe.descriptor.rawValue, Int32(SHUT_WR))
///     let info = try await pipe.finished()
public final class PeerPipe: Sendable {
    /// The stream's end here: a Unix socket. Yours to read and write; the
    /// pipe closes it when it goes.
    public let descriptor: FileDescriptor
    private let answer: Task<Result<StreamInfo, PeerError>, Never>

    /// A pipe on `descriptor`, whose daemon answer `answer` brings.
    init(descriptor: FileDescriptor, answer: Task<Result<StreamInfo, PeerError>, Never>) {
        self.descriptor = descriptor
        self.answer = answer
    }

    deinit { descriptor.close() }

    /// Waits until the stream is over, both ways, and gives its counts.
    public func finished() async throws(PeerError) -> StreamInfo {
        try await answer.value.get()
    }
}
