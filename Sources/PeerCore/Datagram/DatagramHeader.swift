/// The clear header of one datagram on the datagram path (issue 26), in
/// front of its sealed payload:
///
/// | bytes | field |
/// |---|---|
/// | 1 | kind: ``dataKind`` (0x01); any other is dropped |
/// | 4 | the receiver's index for the session, big-endian |
/// | 8 | the counter, big-endian: the AEAD nonce is 4 zero bytes and the counter little-endian, as Noise's ChaChaPoly |
/// | n | ChaCha20-Poly1305 of the payload, with these 13 bytes as associated data; n = payload + 16 |
///
/// The receiver's index lets junk be dropped before any crypto: a datagram
/// whose index names no session costs a table lookup.
package struct DatagramHeader: Sendable, Equatable {
    /// Bytes of the header.
    package static let length = 13
    /// The only kind: a sealed payload. A wire value, pinned by tests.
    package static let dataKind: UInt8 = 0x01
    /// Bytes the AEAD adds.
    package static let tagLength = 16
    /// The most sealed payload a datagram carries: IPv6's least MTU
    /// (1,280) less its header (40), UDP's (8), this header (13) and the
    /// tag (16). A datagram that size crosses any IPv6 path and any
    /// ordinary IPv4 one without fragments; a fragment lost loses the
    /// whole datagram, so nothing larger is sent. The payload's own
    /// layout (``DatagramBody``) leaves a client 1,200 bytes of data.
    package static let maxPayload = 1_203

    /// The receiver's index for the session (it chose it).
    package var receiverIndex: UInt32
    /// The sender's counter: one per datagram, from 0, never again.
    package var counter: UInt64

    /// A header.
    package init(receiverIndex: UInt32, counter: UInt64) {
        self.receiverIndex = receiverIndex
        self.counter = counter
    }

    /// Why a datagram's bytes are dropped before any crypto.
    package enum ParseError: Error, Sendable, Equatable {
        /// Shorter than a header and a tag.
        case tooShort(Int)
        /// More sealed bytes than ``maxPayload`` and a tag.
        case tooLong(Int)
        /// A kind this release does not know.
        case unknownKind(UInt8)
    }

    /// The header of `datagram`, whose sealed payload follows it, or why
    /// it is not one.
    package static func parse<Bytes: RandomAccessCollection<UInt8>>(_ datagram: Bytes) throws(ParseError) -> DatagramHeader
    where Bytes.Index == Int {
        try parseHeader(datagram)
    }

    private static func parseHeader<Bytes: RandomAccessCollection<UInt8>>(_ datagram: Bytes) throws(ParseError) -> DatagramHeader
    where Bytes.Index == Int {
        guard datagram.count >= length + tagLength else { throw .tooShort(datagram.count) }
        guard datagram.count <= length + maxPayload + tagLength else { throw .tooLong(datagram.count) }
        let start = datagram.startIndex
        guard datagram[start] == dataKind else { throw .unknownKind(datagram[start]) }
        return DatagramHeader(receiverIndex: UInt32(BigEndian.read(datagram, at: start + 1, width: 4)),
                              counter: BigEndian.read(datagram, at: start + 5, width: 8))
    }

    /// The header of the datagram in `buffer` (where it was read): the
    /// receive path's, compiled here for the buffer type so that it costs
    /// no generic dispatch per datagram.
    package static func parse(_ buffer: UnsafeRawBufferPointer) throws(ParseError) -> DatagramHeader {
        try parseHeader(buffer)
    }

    /// The 13 header bytes: the associated data of the seal, too.
    package var encoded: [UInt8] {
        var out: [UInt8] = [Self.dataKind]
        out.reserveCapacity(Self.length)
        BigEndian.append(UInt64(receiverIndex), width: 4, to: &out)
        BigEndian.append(counter, width: 8, to: &out)
        return out
    }

    /// Writes the 13 header bytes at the start of `buffer` (the send
    /// path's: no allocation).
    package func write(into buffer: UnsafeMutableRawBufferPointer) {
        precondition(buffer.count >= Self.length, "no room for a datagram header")
        buffer[0] = Self.dataKind
        for index in 0..<4 { buffer[1 + index] = UInt8(truncatingIfNeeded: receiverIndex >> (8 * UInt32(3 - index))) }
        for index in 0..<8 { buffer[5 + index] = UInt8(truncatingIfNeeded: counter >> (8 * UInt64(7 - index))) }
    }

    /// The AEAD nonce for ``counter``: 4 zero bytes, then the counter
    /// little-endian (Noise's ChaChaPoly nonce).
    package var nonce: [UInt8] {
        [0, 0, 0, 0] + (0..<8).map { UInt8(truncatingIfNeeded: counter >> (8 * UInt64($0))) }
    }
}
