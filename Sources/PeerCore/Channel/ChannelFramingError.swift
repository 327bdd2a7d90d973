/// Why the bytes a client wrote to a message channel are not frames.
package enum ChannelFramingError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A length of 0: messages have at least one byte.
    case emptyMessage
    /// A length over the largest message (`--max-message`).
    case tooLarge(Int, max: Int)

    package var description: String {
        switch self {
        case .emptyMessage: "a message of length 0 on the channel (messages have at least one byte)"
        case .tooLarge(let length, let max): "a message of \(length) bytes on the channel, over the largest, \(max) (--max-message)"
        }
    }
}
