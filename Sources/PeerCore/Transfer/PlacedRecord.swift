/// The record of a transfer's small files that are in place (issue 44,
/// point 4: the folder). A file of at most one block (128 KiB) has no
/// ``BlockRecord`` of its own: a second inode a file, made, flushed and
/// removed, cost this machine's disk as much as the file's own flush. Its
/// one block's hash goes into a slot here instead, once its bytes are on
/// disk and before it is renamed into place, and one flush a batch of
/// files makes the batch's slots durable (``ResumePoint``: a slot and no
/// partial file is a file in place; a slot and the partial file is one to
/// rename again).
///
/// It lives in peerd's state directory (`STATE_DIR/transfers/FLOW.placed`,
/// beside the acceptance record), where no peer's bytes land. On disk
/// (integers big-endian), a 64-byte header:
///
///     "PEERDP1\n" · flow id (16) · boot id (16) · hash u8 (1 BLAKE2b-256,
///     2 SHA-256) · 19 zero bytes · crc32 u32 (of the 60 bytes before it)
///
/// then one 40-byte slot per file of the offer, at `64 + 40 × file`, laid
/// out as a ``BlockRecord``'s slot with the file's number for the block's:
///
///     hash (32) · file u32 · crc32 u32 (of the 36 bytes before it)
///
/// A release before 0.4.0 does not know the file and leaves it alone; it
/// reads such a file's absent block record as nothing received, so after
/// a downgrade in the middle of a transfer a small file already in place
/// is received again, under the next free name.
package import PeerProtocol
package enum PlacedRecord {
    /// The first bytes.
    package static let magic: [UInt8] = Array("PEERDP1\n".utf8)
    /// The header's length: a ``BlockRecord``'s, so the slots share its layout.
    package static let headerLength = BlockRecord.headerLength
    /// The largest file this record stands for: one block.
    package static let maxFileSize = Int64(BlockPlan.minBlockSize)

    /// What a record is about.
    package struct Header: Sendable, Equatable {
        /// The transfer.
        package var flow: FlowID
        /// The boot that wrote the header.
        package var bootID: [UInt8]
        /// The slots' hash.
        package var hash: BlockHashKind

        /// A header.
        package init(flow: FlowID, bootID: [UInt8], hash: BlockHashKind) {
            (self.flow, self.bootID, self.hash) = (flow, bootID, hash)
        }
    }

    /// The hash's byte on disk.
    static func code(_ kind: BlockHashKind) -> UInt8 {
        switch kind {
        case .blake2b: 1
        case .sha256: 2
        }
    }

    /// The header's bytes.
    package static func encode(_ header: Header) -> [UInt8] {
        let boot = Array(header.bootID.prefix(BlockRecord.bootIDLength))
        var out = magic + header.flow.bytes + boot + [UInt8](repeating: 0, count: BlockRecord.bootIDLength - boot.count)
        out.append(code(header.hash))
        out += [UInt8](repeating: 0, count: 60 - out.count)
        BigEndian.append(UInt64(CRC32.checksum(out)), width: 4, to: &out)
        return out
    }

    /// Where file `file`'s slot goes, and its bytes.
    package static func slot(file: Int, hash: [UInt8]) -> (offset: Int64, bytes: [UInt8]) {
        BlockRecord.slot(block: file, hash: hash)
    }

    /// Reads a record: its header and the hashes of its files in place,
    /// by file; nil when the header is damaged or not this record's.
    package static func decode(_ bytes: [UInt8]) -> (header: Header, hashes: [Int: [UInt8]])? {
        guard bytes.count >= headerLength, Array(bytes[0..<8]) == magic,
              BigEndian.read(bytes, at: 60, width: 4) == UInt64(CRC32.checksum(bytes[0..<60])),
              let flow = FlowID(bytes: Array(bytes[8..<24])),
              let hash = BlockHashKind.allCases.first(where: { code($0) == bytes[40] }) else { return nil }
        return (Header(flow: flow, bootID: Array(bytes[24..<40]), hash: hash), BlockRecord.slots(bytes))
    }

    /// What a file's slot stands for, as its block record would: the
    /// record ``ResumePoint/decide(expected:record:partialExists:)`` takes
    /// for the file `expected` describes, when `record` holds its slot.
    package static func asBlockRecord(_ record: (header: Header, hashes: [Int: [UInt8]]), expected: BlockRecord.Header)
        -> (header: BlockRecord.Header, hashes: [Int: [UInt8]])? {
        guard record.header.flow == expected.flow, let hash = record.hashes[Int(expected.file)] else { return nil }
        var header = expected
        header.bootID = record.header.bootID
        header.hash = record.header.hash
        // An empty file has no block: its slot says only that it is in place.
        return (header, BlockPlan(fileSize: expected.size).count == 0 ? [:] : [0: hash])
    }
}
