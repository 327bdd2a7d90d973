/// Checks every file of an offer before anything is accepted (issue 12,
/// points 1 and 3): each is accepted with its checked path or refused
/// with a reason, and the totals are what the accepted files add up to.
package import PeerProtocol
package enum OfferCheck {
    /// The most files in one offer.
    package static let maxFiles = TransferLimits.maxFiles
    /// The largest file (1 PiB): sizes a peer sends are checked before any
    /// sum, so no total can overflow.
    package static let maxFileSize: Int64 = 1 << 50

    /// The verdict on an offer.
    package struct Verdict: Sendable, Equatable {
        /// Per file, in the offer's order: nil when it may be accepted,
        /// or why it is refused. A byte a file: the checked paths are not
        /// kept beside the list (``result(_:in:)`` derives one again).
        package var refusals: [OfferRefusal?]
        /// Bytes of the accepted files.
        package var acceptedBytes: Int64
        /// How many are accepted.
        package var acceptedCount: Int

        /// File `index` of `list`: its path, or why it is refused. A peer's
        /// names are refused, never rewritten, so the path is the name
        /// as sent, checked again.
        package func result(_ index: Int, in list: OfferList) -> Result<TransferPath, OfferRefusal> {
            if let refusal = refusals[index] { return .failure(refusal) }
            return TransferPath.check(list.name(index)).mapError { .name($0) }
        }

        /// Every file's ``result(_:in:)`` (for a short list, or a test).
        package func results(in list: OfferList) -> [Result<TransferPath, OfferRefusal>] {
            list.indices.map { result($0, in: list) }
        }
    }

    /// Checks `files` (see ``check(_:)-OfferList``).
    package static func check(_ files: [OfferedFile]) -> Verdict? { check(OfferList(files)) }

    /// Checks `list`; nil when there are more than ``maxFiles`` (the
    /// whole offer is refused then). Names are compared as bytes, read in
    /// place: a checked name is its path, so two names are the same path
    /// only when their bytes are equal, and `a/b` runs through the file
    /// `a` when `a` is the bytes of `a/b` before a `/`.
    package static func check(_ list: OfferList) -> Verdict? {
        guard list.count <= maxFiles else { return nil }
        var refusals: [OfferRefusal?] = []
        refusals.reserveCapacity(list.count)
        // The first file of each valid name.
        var seen: [ArraySlice<UInt8>: Int] = [:]
        for index in list.indices {
            let name = list.name(index)
            if case .failure(let refusal) = TransferPath.check(name) {
                refusals.append(.name(refusal))
            } else {
                refusals.append(nil)
                if seen[name] == nil { seen[name] = index }
            }
        }
        var bytes: Int64 = 0
        var accepted = 0
        for index in list.indices where refusals[index] == nil {
            let name = list.name(index)
            let size = list.size(index)
            if size < 0 || size > maxFileSize {
                refusals[index] = .badSize
            } else if seen[name] != index {
                refusals[index] = .duplicate
            } else if name.indices.contains(where: { name[$0] == UInt8(ascii: "/") && seen[name[..<$0]] != nil }) {
                refusals[index] = .underAFile
            } else {
                // Saturating: sizes come from a peer.
                bytes = bytes.addingReportingOverflow(size).overflow ? .max : bytes + size
                accepted += 1
            }
        }
        return Verdict(refusals: refusals, acceptedBytes: bytes, acceptedCount: accepted)
    }
}
