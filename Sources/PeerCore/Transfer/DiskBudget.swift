/// The download disk's room for an offer (issue 21, point 1.3): bytes and
/// inodes, counting what offers in progress were already promised and
/// keeping a reserve for the inbox, the queue and the state files, so two
/// offers never both take the same free space, and a 4,000-file offer of
/// empty files cannot take every inode.
package import PeerProtocol
package struct DiskBudget: Sendable, Equatable {
    /// Bytes and inodes.
    package struct Cost: Sendable, Equatable {
        /// Bytes of file data.
        package var bytes: Int64
        /// Inodes: files, their records, folders.
        package var inodes: Int64

        /// A cost.
        package init(bytes: Int64, inodes: Int64) {
            self.bytes = bytes
            self.inodes = inodes
        }

        /// Nothing.
        package static let zero = Cost(bytes: 0, inodes: 0)

        /// The sum, saturating (sizes come from peers).
        package static func + (a: Cost, b: Cost) -> Cost {
            Cost(bytes: a.bytes.addingReportingOverflow(b.bytes).overflow ? .max : a.bytes + b.bytes,
                 inodes: a.inodes.addingReportingOverflow(b.inodes).overflow ? .max : a.inodes + b.inodes)
        }
    }

    /// What an offer would not fit.
    package enum Shortfall: Sendable, Equatable {
        /// Bytes: needed (with what is promised and the reserve) against free.
        case bytes(needed: Int64, free: Int64)
        /// Inodes: needed (likewise) against free.
        case inodes(needed: Int64, free: Int64)

        /// The words for people and for the `cancel` text.
        package var description: String {
            switch self {
            case .bytes(let needed, let free):
                return "the offer needs \(needed) bytes with the transfers in progress and the reserve; \(free) are free"
            case .inodes(let needed, let free):
                return "the offer needs \(needed) inodes (files, their records and folders) with the transfers in progress and the reserve; \(free) are free"
            }
        }
    }

    /// Free on the download disk now: bytes, and inodes (nil on a file
    /// system that has no fixed number, such as btrfs).
    package var freeBytes: Int64
    /// Free inodes, nil when unlimited.
    package var freeInodes: Int64?
    /// Still to be written by the offers already accepted.
    package var promised: Cost
    /// Kept back for everything else on the disk.
    package var reserve: Cost

    /// A budget.
    package init(freeBytes: Int64, freeInodes: Int64?, promised: Cost, reserve: Cost) {
        self.freeBytes = freeBytes
        self.freeInodes = freeInodes
        self.promised = promised
        self.reserve = reserve
    }

    /// The reserve peerd keeps: 64 MiB and 1,024 inodes.
    package static let defaultReserve = Cost(bytes: 64 << 20, inodes: 1024)

    /// What files cost before they are in place: their bytes, two inodes
    /// each (the partial file and its block record; a file of one block
    /// has no record of its own, ``PlacedRecord``, and is counted the same,
    /// since a peer whose block hash changed keeps records), and one per folder
    /// the paths name (each counted once, whether or not it exists yet:
    /// the budget errs on the side of the disk).
    package static func cost(of files: [(path: TransferPath, size: Int64)]) -> Cost {
        var folders = Set<ArraySlice<String>>()
        var cost = Cost.zero
        for file in files {
            cost = cost + Cost(bytes: max(0, file.size), inodes: 2)
            for depth in 1..<max(1, file.path.components.count) { folders.insert(file.path.components.prefix(depth)) }
        }
        return cost + Cost(bytes: 0, inodes: Int64(folders.count))
    }

    /// Why `cost` does not fit, or nil when it does.
    package func shortfall(for cost: Cost) -> Shortfall? {
        let bytes = cost + promised + reserve
        if bytes.bytes > freeBytes { return .bytes(needed: bytes.bytes, free: freeBytes) }
        if let freeInodes, bytes.inodes > freeInodes { return .inodes(needed: bytes.inodes, free: freeInodes) }
        return nil
    }
}
