/// Reassembles fragmented application data, refusing anything over the
/// configured maximum message size (`--max-message`).
public struct MessageAssembler: Sendable {
    /// The largest message accepted.
    public let maxMessage: Int
    private var pending: [UInt8] = []

    /// An assembler accepting messages up to `maxMessage` bytes.
    public init(maxMessage: Int) { self.maxMessage = maxMessage }

    /// What a fragment completed.
    public enum Outcome: Equatable, Sendable {
        /// More fragments are needed.
        case incomplete
        /// A whole message.
        case message([UInt8])
        /// The message passed `maxMessage` (bytes so far).
        case tooLarge(Int)
    }

    /// Adds one fragment.
    public mutating func add(more: Bool, bytes: [UInt8]) -> Outcome {
        guard pending.count + bytes.count <= maxMessage else {
            let size = pending.count + bytes.count
            pending = []
            return .tooLarge(size)
        }
        pending += bytes
        guard !more else { return .incomplete }
        defer { pending = [] }
        return .message(pending)
    }
}
