/// What an acceptance is bound to (issue 21, point 1.2): the files of an
/// offer, as one canonical byte string that a hash is taken of. A resume
/// is the same offer only when its names, sizes, modes and count are the
/// same, in the same order; anything else under an old transfer id is a
/// new offer, decided afresh.
public enum OfferManifest {
    /// The canonical bytes: `count` u32, then per file `name_len` u32 ·
    /// `name` · `size` i64 · `mode` u32, big-endian. The modification time
    /// is left out: it does not change what lands or who may run it.
    public static func canonicalBytes(_ files: [OfferedFile]) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(4 + files.reduce(0) { $0 + 16 + $1.name.count })
        BigEndian.append(UInt64(files.count), width: 4, to: &out)
        for file in files {
            BigEndian.append(UInt64(file.name.count), width: 4, to: &out)
            out += file.name
            BigEndian.append(UInt64(bitPattern: file.size), width: 8, to: &out)
            BigEndian.append(UInt64(file.mode), width: 4, to: &out)
        }
        return out
    }
}
