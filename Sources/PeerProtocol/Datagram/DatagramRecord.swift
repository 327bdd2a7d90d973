import FoundationEssentials

/// One record on a `datagrams` socket (a `SOCK_SEQPACKET` socket passed
/// with the request; docs/control-protocol.md, "Datagrams"): each record
/// is one datagram, so no length is needed.
///
/// Client to daemon, a datagram to send:
///
///     kind u8 = 0x01 · peer UUID (16 bytes) · data
///
/// Daemon to client, a datagram that arrived:
///
///     kind u8 = 0x01 · peer UUID (16 bytes) · lost u32 (big-endian) · data
///
/// `lost` counts the datagrams for this socket that were dropped since
/// the record before, because the socket was full (the client read too
/// slowly); it saturates at 2³² − 1.
public enum DatagramRecord {
    /// The kind of a datagram record. A wire value, pinned by tests.
    public static let datagramKind: UInt8 = 0x01
    /// Bytes before the data of a record to send.
    public static let sendHeader = 17
    /// Bytes before the data of a record received.
    public static let receiveHeader = 21
    /// The most data bytes in one datagram (PeerCore's `DatagramBody.maxData`).
    public static let maxData = 1_200
    /// The largest record either way: a received one of ``maxData`` data bytes.
    public static let maxRecord = receiveHeader + maxData

    /// A record to send `data` to `peer`.
    public static func send(to peer: UUID, _ data: some Collection<UInt8>) -> [UInt8] {
        var out: [UInt8] = [datagramKind]
        out.reserveCapacity(sendHeader + data.count)
        appendUUID(peer, to: &out)
        out += data
        return out
    }

    /// Reads a record to send: the peer and where its data starts; nil
    /// when it is not one.
    public static func parseSend(_ record: UnsafeRawBufferPointer) -> (peer: UUID, dataOffset: Int)? {
        guard record.count >= sendHeader, record[0] == datagramKind else { return nil }
        return (readUUID(record, at: 1), sendHeader)
    }

    /// Writes the header of a received record into the first
    /// ``receiveHeader`` bytes of `buffer`.
    public static func writeReceived(from peer: UUID, lost: UInt64, into buffer: UnsafeMutableRawBufferPointer) {
        writeReceived(from: uuidBytes(peer), lost: lost, into: buffer)
    }

    /// The 16 bytes of `uuid`, as records carry them.
    public static func uuidBytes(_ uuid: UUID) -> [UInt8] {
        var out: [UInt8] = []
        appendUUID(uuid, to: &out)
        return out
    }

    /// ``writeReceived(from:lost:into:)`` with the peer's 16 bytes made
    /// already (``uuidBytes(_:)``): the receive path's, per datagram.
    public static func writeReceived(from peer: [UInt8], lost: UInt64, into buffer: UnsafeMutableRawBufferPointer) {
        precondition(peer.count == 16 && buffer.count >= receiveHeader, "a record header needs 16 UUID bytes and 21 bytes of room")
        buffer[0] = datagramKind
        for index in 0..<16 { buffer[1 + index] = peer[index] }
        writeLost(lost, into: buffer)
    }

    /// Writes a received record's `lost` (bytes 17 to 20, saturated) into
    /// `buffer`, whose header is written already.
    public static func writeLost(_ lost: UInt64, into buffer: UnsafeMutableRawBufferPointer) {
        precondition(buffer.count >= receiveHeader, "a record header needs 21 bytes of room")
        let saturated = UInt32(min(lost, UInt64(UInt32.max)))
        for index in 0..<4 { buffer[17 + index] = UInt8(truncatingIfNeeded: saturated >> (8 * UInt32(3 - index))) }
    }

    /// Reads a received record: the peer, the datagrams lost before it,
    /// and its data; nil when it is not one.
    public static func parseReceived(_ record: [UInt8]) -> (peer: UUID, lost: UInt32, data: ArraySlice<UInt8>)? {
        guard record.count >= receiveHeader, record[0] == datagramKind else { return nil }
        let peer = record.withUnsafeBytes { readUUID($0, at: 1) }
        let lost = record[17..<21].reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
        return (peer, lost, record[receiveHeader...])
    }

    private static func appendUUID(_ uuid: UUID, to out: inout [UInt8]) {
        withUnsafeBytes(of: uuid.uuid) { out += $0 }
    }

    private static func readUUID(_ bytes: UnsafeRawBufferPointer, at offset: Int) -> UUID {
        var raw: uuid_t = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        withUnsafeMutableBytes(of: &raw) { $0.copyMemory(from: UnsafeRawBufferPointer(rebasing: bytes[offset..<(offset + 16)])) }
        return UUID(uuid: raw)
    }
}
