/// Checks every file of an offer before anything is accepted (issue 12,
/// points 1 and 3): each is accepted with its checked path or refused
/// with a reason, and the totals are what the accepted files add up to.
public enum OfferCheck {
    /// The most files in one offer.
    public static let maxFiles = 100_000
    /// The largest file (1 PiB): sizes a peer sends are checked before any
    /// sum, so no total can overflow.
    public static let maxFileSize: Int64 = 1 << 50

    /// The verdict on an offer.
    public struct Verdict: Sendable, Equatable {
        /// Per file, in the offer's order: its path, or why it is refused.
        public var files: [Result<TransferPath, OfferRefusal>]
        /// Bytes of the accepted files.
        public var acceptedBytes: Int64
        /// How many are accepted.
        public var acceptedCount: Int
    }

    /// Checks `files`; nil when there are more than ``maxFiles`` (the
    /// whole offer is refused then).
    public static func check(_ files: [OfferedFile]) -> Verdict? {
        guard files.count <= maxFiles else { return nil }
        let paths = files.map { TransferPath.check($0.name) }
        var seen: [TransferPath: Int] = [:]
        for (index, path) in paths.enumerated() {
            if case .success(let found) = path, seen[found] == nil { seen[found] = index }
        }
        var results: [Result<TransferPath, OfferRefusal>] = []
        results.reserveCapacity(files.count)
        var bytes: Int64 = 0
        for (index, file) in files.enumerated() {
            let result: Result<TransferPath, OfferRefusal>
            switch paths[index] {
            case .failure(let refusal):
                result = .failure(.name(refusal))
            case .success(let path):
                if file.size < 0 || file.size > maxFileSize {
                    result = .failure(.badSize)
                } else if seen[path] != index {
                    result = .failure(.duplicate)
                } else if (1..<path.components.count).contains(where: { seen[TransferPath(prefixOf: path, count: $0)] != nil }) {
                    result = .failure(.underAFile)
                } else {
                    result = .success(path)
                }
            }
            // Saturating: sizes come from a peer.
            if case .success = result { bytes = bytes.addingReportingOverflow(file.size).overflow ? .max : bytes + file.size }
            results.append(result)
        }
        return Verdict(files: results, acceptedBytes: bytes, acceptedCount: results.filter { (try? $0.get()) != nil }.count)
    }
}

extension TransferPath {
    /// The first `count` components of `path` (already checked).
    init(prefixOf path: TransferPath, count: Int) {
        self.init(components: Array(path.components.prefix(count)))
    }
}
