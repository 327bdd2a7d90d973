import PeerCore

/// One direction's datagram key (docs/protocol.md §11): derived from the
/// session's handshake (``NoiseHandshakeState/datagramKeys()``), never
/// the transport keys. Each datagram's nonce is its explicit counter, so
/// the key itself holds no nonce: the sender counts
/// (``DatagramLink``), the receiver's ``DatagramReplayWindow`` remembers.
///
/// The key lives in memory of its own, wiped when the last reference goes:
/// the session ended, and with it the path. A class, so no copy of the
/// key is ever made by passing it around. `@unchecked Sendable` is safe:
/// the key never changes after init, and seal and open only read it.
package final class DatagramCipher: @unchecked Sendable {
    private let key: UnsafeMutableRawBufferPointer

    /// A cipher over `key` (32 bytes), which is wiped here once copied.
    package init(key: inout [UInt8]) {
        precondition(key.count == 32, "a ChaCha20-Poly1305 key is 32 bytes")
        self.key = UnsafeMutableRawBufferPointer.allocate(byteCount: 32, alignment: 16)
        key.withUnsafeBytes { self.key.copyMemory(from: $0) }
        key.withUnsafeMutableBytes { Sodium.wipe($0) }
        key = []
    }

    deinit {
        Sodium.wipe(key)
        key.deallocate()
    }

    /// Seals the datagram in `buffer`: its ``DatagramHeader`` in the first
    /// 13 bytes (the associated data), then `count` payload bytes sealed
    /// where they are, the tag after them. `buffer` holds 13 + count + 16.
    package func seal(_ buffer: UnsafeMutableRawBufferPointer, counter: UInt64, count: Int) {
        let header = UnsafeRawBufferPointer(rebasing: buffer[0..<DatagramHeader.length])
        let body = UnsafeMutableRawBufferPointer(rebasing: buffer[DatagramHeader.length..<(DatagramHeader.length + count + DatagramHeader.tagLength)])
        Sodium.aeadSealInPlace(key: UnsafeRawBufferPointer(key), nonce: counter, buffer: body, count: count, ad: header)
    }

    /// Opens the whole datagram in `buffer` (header, sealed payload, tag)
    /// where it is: the payload's length (it starts at byte 13), or nil
    /// when it does not authenticate.
    package func open(_ buffer: UnsafeMutableRawBufferPointer, counter: UInt64) -> Int? {
        guard buffer.count >= DatagramHeader.length + DatagramHeader.tagLength else { return nil }
        let header = UnsafeRawBufferPointer(rebasing: buffer[0..<DatagramHeader.length])
        let body = UnsafeMutableRawBufferPointer(rebasing: buffer[DatagramHeader.length...])
        guard Sodium.aeadOpenInPlace(key: UnsafeRawBufferPointer(key), nonce: counter, buffer: body, ad: header) else { return nil }
        return body.count - DatagramHeader.tagLength
    }
}
