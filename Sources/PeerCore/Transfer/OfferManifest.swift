/// What an acceptance is bound to (issue 21, point 1.2): the files of an
/// offer, as one canonical byte string that a hash is taken of. A resume
/// is the same offer only when its names, sizes, modes and count are the
/// same, in the same order; anything else under an old transfer id is a
/// new offer, decided afresh.
internal import PeerProtocol
package enum OfferManifest {
    /// The canonical bytes: `count` u32, then per file `name_len` u32 ·
    /// `name` · `size` i64 · `mode` u32, big-endian. The modification time
    /// is left out: it does not change what lands or who may run it.
    package static func canonicalBytes(_ files: [OfferedFile]) -> [UInt8] {
        var out: [UInt8] = []
        canonicalChunks(OfferList(files)) { out += $0 }
        return out
    }

    /// ``canonicalBytes(_:)`` of `list`, handed to `sink` in pieces of
    /// about ``chunkBytes``: a hash is taken of a list of 16 MiB of names
    /// without a second copy of it (issue 42, point 1).
    package static func canonicalChunks(_ list: OfferList, into sink: ([UInt8]) -> Void) {
        var out: [UInt8] = []
        out.reserveCapacity(chunkBytes + TransferPath.maxPathBytes + 16)
        BigEndian.append(UInt64(list.count), width: 4, to: &out)
        for index in list.indices {
            let name = list.name(index)
            BigEndian.append(UInt64(name.count), width: 4, to: &out)
            out += name
            BigEndian.append(UInt64(bitPattern: list.size(index)), width: 8, to: &out)
            BigEndian.append(UInt64(list.mode(index)), width: 4, to: &out)
            if out.count >= chunkBytes {
                sink(out)
                out.removeAll(keepingCapacity: true)
            }
        }
        sink(out)
    }

    /// The size of the pieces ``canonicalChunks(_:into:)`` hands on.
    package static let chunkBytes = 64 << 10
}
