/// An offer's files as a receiver holds them (issue 42, point 1): each
/// part's names in one byte array and its other fields in one array of
/// fixed-size entries, both exactly as large as the part. A list of
/// 18,927 names of 786 bytes held as ``OfferedFile`` values (an array a
/// name, and the checked paths beside them) took 2.6 times its names in
/// private memory; held here it takes its names and ``entryCost`` (24)
/// bytes a file, which is what ``memoryCost`` counts against the budgets.
internal import PeerProtocol
package struct OfferList: RandomAccessCollection, Sendable, Equatable {
    /// The bytes a file costs beyond its name: its entry, as laid out.
    package static let entryCost = MemoryLayout<Entry>.stride
    /// What the heap adds to each array: its header and malloc's own.
    package static let arrayCost = 48

    /// One file's fields but its name, which is `names[nameStart...]` of
    /// its part: 24 bytes. A part's names fit 16 bits (an `offer` is one
    /// message of at most 65,535 bytes; ``append(_:)`` splits a longer list).
    struct Entry: Sendable, Equatable {
        /// The size as offered (a top-bit one kept as sent, refused later).
        var size: Int64
        /// Seconds since the epoch.
        var mtime: Int64
        /// The mode as offered.
        var mode: UInt32
        /// Where its name starts in its part's names.
        var nameStart: UInt16
        /// Its name's bytes (at most 4,096).
        var nameLength: UInt16
    }

    /// The files of one `offer` part.
    struct Part: Sendable, Equatable {
        /// The number of its first file in the whole list.
        var first: Int
        /// Its files' names, back to back, exactly as long as they are.
        var names: [UInt8]
        /// Its files' other fields, one entry a file.
        var entries: [Entry]
    }

    private var parts: [Part] = []
    /// How many files.
    package private(set) var count = 0
    /// Bytes of names.
    package private(set) var nameBytes = 0

    /// An empty list.
    package init() {}

    /// A list of `files`, as one part.
    package init(_ files: [OfferedFile]) { append(files) }

    /// The first file's number.
    package var startIndex: Int { 0 }
    /// One past the last file's number.
    package var endIndex: Int { count }

    /// File `index`, its name copied out (use ``name(_:)`` to read it in place).
    package subscript(index: Int) -> OfferedFile {
        let (part, entry) = locate(index)
        return OfferedFile(name: Array(name(entry, in: part)), size: entry.size, mode: entry.mode, mtime: entry.mtime)
    }

    /// File `index`'s name, read in place (no copy).
    package func name(_ index: Int) -> ArraySlice<UInt8> {
        let (part, entry) = locate(index)
        return name(entry, in: part)
    }

    /// File `index`'s size, as the offer gave it.
    package func size(_ index: Int) -> Int64 { locate(index).entry.size }

    /// File `index`'s mode, as the offer gave it.
    package func mode(_ index: Int) -> UInt32 { locate(index).entry.mode }

    /// Adds one part's files, each array sized exactly.
    package mutating func append(_ files: [OfferedFile]) {
        var start = files.startIndex
        while start < files.endIndex {
            // As many files as start within 16 bits of names (all of a
            // wire part's; names are at most 4,096 bytes, checked as read).
            var end = start, bytes = 0
            while end < files.endIndex, bytes <= Int(UInt16.max) - TransferPath.maxPathBytes {
                bytes += Swift.min(files[end].name.count, TransferPath.maxPathBytes)
                end += 1
            }
            appendPart(files[start..<end], nameBytes: bytes)
            start = end
        }
    }

    private mutating func appendPart(_ files: ArraySlice<OfferedFile>, nameBytes total: Int) {
        var names: [UInt8] = []
        names.reserveCapacity(total)
        var entries: [Entry] = []
        entries.reserveCapacity(files.count)
        for file in files {
            let name = file.name.prefix(TransferPath.maxPathBytes)
            entries.append(Entry(size: file.size, mtime: file.mtime, mode: file.mode, nameStart: UInt16(names.count), nameLength: UInt16(name.count)))
            names += name
        }
        parts.append(Part(first: count, names: names, entries: entries))
        count += files.count
        nameBytes += names.count
    }

    /// What the list holds on the heap: every array's capacity and overhead.
    package var memoryCost: Int {
        parts.capacity * MemoryLayout<Part>.stride + Self.arrayCost
            + parts.reduce(0) { $0 + $1.names.capacity + $1.entries.capacity * Self.entryCost + 2 * Self.arrayCost }
    }

    private func name(_ entry: Entry, in part: Part) -> ArraySlice<UInt8> {
        let start = Int(entry.nameStart)
        return part.names[start..<start + Int(entry.nameLength)]
    }

    /// The part holding file `index` (a binary search over the parts' first numbers).
    private func locate(_ index: Int) -> (part: Part, entry: Entry) {
        precondition(index >= 0 && index < count, "file \(index) of \(count)")
        var low = 0, high = parts.count - 1
        while low < high {
            let middle = (low + high + 1) / 2
            if parts[middle].first <= index { low = middle } else { high = middle - 1 }
        }
        let part = parts[low]
        return (part, part.entries[index - part.first])
    }
}
