/// An incoming offer put together from its parts (issue 21, point 8;
/// protocol.md §8, "A transfer", step 1): the files in order, the totals the
/// first part declared, and the limits a peer's list must keep. Pure: the
/// desk feeds it parts and acts on what it answers.
package struct OfferAssembly: Sendable, Equatable {
    /// The most bytes of names in one offer.
    package static let maxNameBytes = 16 << 20

    /// What a part did to the offer.
    package enum Outcome: Sendable, Equatable {
        /// More parts are to come.
        case needMore
        /// The list is whole and adds up to its totals.
        case complete
        /// The offer breaks a rule or a limit: it is cancelled with these words.
        case refused(String)
    }

    /// The files so far, in the offer's order.
    package private(set) var files = OfferList()
    /// `total_files` as the first part declared it.
    package private(set) var declaredFiles = 0
    /// `total_bytes` as the first part declared it, clamped to `Int64` for
    /// showing (a top-bit total only comes with a top-bit size, verdict 4).
    package var declaredBytes: Int64 { Int64(clamping: declaredTotal) }
    /// `total_bytes` as the first part declared it, unsigned as on the wire.
    package private(set) var declaredTotal: UInt64 = 0
    /// Whether the last part has come and the list adds up.
    package private(set) var isComplete = false

    /// An offer with no part yet.
    package init() {}

    /// What the list costs in memory, counted the way the heap pays for it
    /// (``OfferList/memoryCost``).
    package var listCost: Int { files.memoryCost }

    /// What `part` will add to ``listCost`` once taken: asked before it is.
    package static func cost(of part: [OfferedFile]) -> Int {
        part.reduce(0) { $0 + $1.name.count + OfferList.entryCost } + 2 * OfferList.arrayCost + 64
    }

    /// Takes one part: `totalFiles` and `totalBytes` count from the first.
    package mutating func add(_ part: [OfferedFile], more: Bool, totalFiles: UInt32, totalBytes: UInt64) -> Outcome {
        guard !isComplete else { return .refused("an offer part after the last one") }
        if files.isEmpty {
            declaredFiles = Int(totalFiles)
            declaredTotal = totalBytes
        }
        guard files.count + part.count <= OfferCheck.maxFiles, files.count + part.count <= declaredFiles else {
            return .refused("an offer of more than \(min(declaredFiles, OfferCheck.maxFiles)) files")
        }
        guard files.nameBytes + part.reduce(0, { $0 + $1.name.count }) <= Self.maxNameBytes else {
            return .refused("an offer whose names pass \(Self.maxNameBytes) bytes")
        }
        files.append(part)
        guard !more else { return .needMore }
        // Sizes are unsigned 64-bit numbers on the wire (a top-bit size is
        // refused file by file, verdict 4, not here), and so is their sum:
        // one that passes 2^64 − 1 cannot be declared.
        var sum: UInt64 = 0
        for index in files.indices {
            let (next, overflow) = sum.addingReportingOverflow(UInt64(bitPattern: files.size(index)))
            guard !overflow else { return .refused("an offer whose sizes overflow") }
            sum = next
        }
        guard files.count == declaredFiles, sum == declaredTotal else {
            return .refused("an offer whose files do not add up to its totals")
        }
        isComplete = true
        return .complete
    }
}
