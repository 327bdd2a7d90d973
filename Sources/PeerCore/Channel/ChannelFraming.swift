/// The framing of a message channel (docs/control-protocol.md, "Message
/// channels"): each message is a 4-byte big-endian length, then that many
/// bytes. The same both ways: a client writes the messages it sends, the
/// daemon writes the messages that arrive.
///
/// A length of 0, or over the largest message, is an error: the channel
/// closes, since nothing after a bad length can be trusted to be a frame.
package enum ChannelFraming {
    /// Bytes of the length prefix.
    package static let prefixLength = 4

    /// The next frame at the start of `bytes`: where its message lies, or
    /// ``Scan/needMore(_:)`` with the whole frame's size once the prefix is
    /// there (so a large message can be gathered in a buffer of its own).
    package static func scan(_ bytes: UnsafeRawBufferPointer, maxMessage: Int) throws(ChannelFramingError) -> Scan {
        guard bytes.count >= prefixLength else { return .needMore(nil) }
        let length = messageLength(prefix: bytes)
        guard length > 0 else { throw .emptyMessage }
        guard length <= maxMessage else { throw .tooLarge(length, max: maxMessage) }
        guard bytes.count >= prefixLength + length else { return .needMore(prefixLength + length) }
        return .frame(prefixLength..<(prefixLength + length))
    }

    /// The message length a prefix gives: the first ``prefixLength`` bytes
    /// of `prefix`, which must be there (unchecked: 0 and oversized
    /// lengths are ``scan(_:maxMessage:)``'s to refuse).
    package static func messageLength(prefix: UnsafeRawBufferPointer) -> Int {
        Int(BigEndian.read(prefix, at: 0, width: prefixLength))
    }

    /// Appends the prefix for a message of `count` bytes.
    package static func appendPrefix(_ count: Int, to out: inout [UInt8]) {
        BigEndian.append(UInt64(count), width: prefixLength, to: &out)
    }

    /// What ``scan(_:maxMessage:)`` found.
    package enum Scan: Sendable, Equatable {
        /// A whole frame: the range of its message.
        case frame(Range<Int>)
        /// Not whole yet; the frame's whole size when the prefix was read.
        case needMore(Int?)
    }
}
