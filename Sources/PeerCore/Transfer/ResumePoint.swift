/// Where one accepted file starts when its offer arrives (again), from
/// what is on disk (issue 12, point 4), decided without I/O.
package enum ResumePoint: Sendable, Equatable {
    /// Nothing usable: start the partial file over.
    case fresh
    /// Blocks `0..<hashes.count` are verified (their hashes, in order):
    /// ask for the rest.
    case from(hashes: [[UInt8]])
    /// The same, but written in another boot: hash those blocks again
    /// before believing them (a power loss can lose data the record kept).
    case verifyFirst(hashes: [[UInt8]])
    /// The file is already in place (its partial file is gone and every
    /// block was verified): nothing to send.
    case complete

    /// The wire's `first_block` for a file already complete.
    package static let completeMarker = UInt32.max

    /// Decides for the file `expected` describes (its boot id is this
    /// boot's), given the record read from disk (nil: none, or damaged)
    /// and whether the partial file exists.
    package static func decide(expected: BlockRecord.Header, record: (header: BlockRecord.Header, hashes: [Int: [UInt8]])?,
                              partialExists: Bool) -> ResumePoint {
        guard let record, record.header.flow == expected.flow, record.header.file == expected.file,
              record.header.size == expected.size, record.header.blockSize == expected.blockSize else { return .fresh }
        let plan = BlockPlan(fileSize: expected.size)
        var prefix: [[UInt8]] = []
        while prefix.count < plan.count, let hash = record.hashes[prefix.count] { prefix.append(hash) }
        if !partialExists { return prefix.count == plan.count ? .complete : .fresh }
        // Every block verified but not yet renamed is `.from(all)`: the
        // sender sends only the file's end, and the rename runs again.
        // Slots of another hash than this session's (a peer that gained or
        // lost `sha256-blocks` between sessions) cannot be compared with
        // the sender's: the file starts over.
        if prefix.isEmpty || record.header.hash != expected.hash { return .fresh }
        return record.header.bootID == expected.bootID ? .from(hashes: prefix) : .verifyFirst(hashes: prefix)
    }
}
