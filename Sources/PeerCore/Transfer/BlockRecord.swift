/// The record kept next to a partial file (issue 12, point 4): which of
/// its blocks are verified, and their hashes, so a transfer that resumes
/// asks only for what is missing and never re-hashes the partial file to
/// find out where it was.
///
/// On disk (integers big-endian), a 64-byte header:
///
///     "PEERDR1\n" · flow id (16) · file u32 · size u64 · block size u32 ·
///     boot id (16) · crc32 u32 · 4 zero bytes
///
/// The magic names the slots' hash: "PEERDR1\n" BLAKE2b-256 (every
/// release), "PEERDR2\n" SHA-256 (0.4.0, `sha256-blocks`), the layout
/// otherwise the same. A release that knows only the first reads the
/// second as no record, and receives the file again.
///
/// (the CRC-32 covers the 56 bytes before it), then one 40-byte slot per
/// block, at `64 + 40 × block`:
///
///     hash (32) · block u32 · crc32 u32 (of the 36 bytes before it)
///
/// A slot is written, in place, once its block's bytes are written and
/// its hash matched. A slot whose CRC fails, or that names another block,
/// was never finished and does not count. The boot id says which boot
/// wrote the slots: a process that is killed loses nothing the kernel
/// already has, but after a reboot the blocks are hashed again before
/// they are believed (``ResumePoint``).
package import PeerProtocol
package enum BlockRecord {
    /// The first bytes of a record whose hashes are BLAKE2b-256.
    package static let magic: [UInt8] = Array("PEERDR1\n".utf8)
    /// The first bytes of a record whose hashes are SHA-256.
    package static let sha256Magic: [UInt8] = Array("PEERDR2\n".utf8)

    /// The first bytes of a record of `kind`.
    package static func magic(of kind: BlockHashKind) -> [UInt8] {
        switch kind {
        case .blake2b: magic
        case .sha256: sha256Magic
        }
    }
    /// The header's length.
    package static let headerLength = 64
    /// One slot's length.
    package static let slotLength = 40
    /// The boot id's length (`/proc/sys/kernel/random/boot_id`, as bytes).
    package static let bootIDLength = 16

    /// What a record is about.
    package struct Header: Sendable, Equatable {
        /// The transfer.
        package var flow: FlowID
        /// The file's number in the offer.
        package var file: UInt32
        /// The file's size.
        package var size: Int64
        /// The plan's block size.
        package var blockSize: Int
        /// The boot that wrote the slots.
        package var bootID: [UInt8]
        /// The slots' hash (the magic).
        package var hash: BlockHashKind

        /// A header.
        package init(flow: FlowID, file: UInt32, size: Int64, blockSize: Int, bootID: [UInt8], hash: BlockHashKind = .blake2b) {
            self.hash = hash
            self.flow = flow
            self.file = file
            self.size = size
            self.blockSize = blockSize
            self.bootID = bootID
        }
    }

    /// The header's bytes.
    package static func encode(_ header: Header) -> [UInt8] {
        var out = magic(of: header.hash) + header.flow.bytes
        BigEndian.append(UInt64(header.file), width: 4, to: &out)
        BigEndian.append(UInt64(bitPattern: header.size), width: 8, to: &out)
        BigEndian.append(UInt64(header.blockSize), width: 4, to: &out)
        out += header.bootID.prefix(bootIDLength) + [UInt8](repeating: 0, count: max(0, bootIDLength - header.bootID.count))
        BigEndian.append(UInt64(CRC32.checksum(out)), width: 4, to: &out)
        return out + [0, 0, 0, 0]
    }

    /// Where block `block`'s slot goes, and its bytes.
    package static func slot(block: Int, hash: [UInt8]) -> (offset: Int64, bytes: [UInt8]) {
        var out = Array(hash.prefix(BulkCodec.hashLength))
        BigEndian.append(UInt64(block), width: 4, to: &out)
        BigEndian.append(UInt64(CRC32.checksum(out)), width: 4, to: &out)
        return (Int64(headerLength + slotLength * block), out)
    }

    /// Reads a record: its header and the hashes of its finished slots, by
    /// block; nil when the header is damaged or not a record.
    package static func decode(_ bytes: [UInt8]) -> (header: Header, hashes: [Int: [UInt8]])? {
        guard bytes.count >= headerLength, let hash = BlockHashKind.allCases.first(where: { magic(of: $0) == Array(bytes[0..<8]) }),
              BigEndian.read(bytes, at: 56, width: 4) == UInt64(CRC32.checksum(bytes[0..<56])),
              let flow = FlowID(bytes: Array(bytes[8..<24])) else { return nil }
        let header = Header(flow: flow, file: UInt32(BigEndian.read(bytes, at: 24, width: 4)), size: Int64(bitPattern: BigEndian.read(bytes, at: 28, width: 8)),
                            blockSize: Int(BigEndian.read(bytes, at: 36, width: 4)), bootID: Array(bytes[40..<56]), hash: hash)
        return (header, slots(bytes))
    }

    /// The hashes of the finished slots after a 64-byte header, by number
    /// (a block's here; a file's in a ``PlacedRecord``, which shares the
    /// slot layout): a slot whose CRC fails, or that names another number,
    /// does not count.
    package static func slots(_ bytes: [UInt8]) -> [Int: [UInt8]] {
        var hashes: [Int: [UInt8]] = [:]
        var offset = headerLength
        while offset + slotLength <= bytes.count {
            let number = (offset - headerLength) / slotLength
            if BigEndian.read(bytes, at: offset + 36, width: 4) == UInt64(CRC32.checksum(bytes[offset..<(offset + 36)])),
               BigEndian.read(bytes, at: offset + 32, width: 4) == UInt64(number) {
                hashes[number] = Array(bytes[offset..<(offset + 32)])
            }
            offset += slotLength
        }
        return hashes
    }
}
