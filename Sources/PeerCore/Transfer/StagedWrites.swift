/// Where a received file's bytes wait before they go to disk past the page
/// cache (issue 44, the third pass): a large file's chunks are gathered in
/// one aligned buffer (the stage) and written with `O_DIRECT` a stage at a
/// time. On this lab's VM a GiB written through the page cache and
/// flushed cost 0.7-3.1 s of system time (each page allocated and copied,
/// then written back by the kernel); written directly in 1 MiB requests,
/// 0.15 s (docs/performance.md, "The third pass").
///
/// The decisions, with no I/O: each call takes what happened and returns
/// what the shell (`DirectStage`) does, in order. A direct write needs its
/// file offset, length and memory aligned; the stage starts only at an
/// aligned offset, and what is left unaligned at a flush (the file's last
/// bytes) is written through the page cache. A write that does not follow
/// the staged bytes flushes them first: nothing is ever reordered or lost.
package struct StagedWrites: Sendable, Equatable {
    /// What the shell does.
    package enum Action: Sendable, Equatable {
        /// Copy the caller's bytes `from..<from+count` into the stage at `to`.
        case stage(from: Int, count: Int, to: Int)
        /// Write the stage's bytes `from..<from+count` at file offset `at`:
        /// directly when `direct` (`from`, `count` and `at` aligned), else
        /// through the page cache.
        case writeStage(from: Int, count: Int, at: Int64, direct: Bool)
        /// Write the caller's bytes `from..<from+count` at `at` through the
        /// page cache (an unaligned start: never staged).
        case writeThrough(from: Int, count: Int, at: Int64)
    }

    /// The alignment a direct write needs (of offset, length and memory):
    /// a page, which covers every logical block size Linux disks have.
    package static let alignment = 4096

    /// The stage's size: a multiple of ``alignment``.
    package let capacity: Int
    /// The file offset of the stage's first byte; nil while it is empty
    /// and placed nowhere.
    package private(set) var start: Int64?
    /// How many bytes the stage holds.
    package private(set) var filled = 0

    /// An empty stage of `capacity` bytes (rounded down to ``alignment``,
    /// and at least one page).
    package init(capacity: Int) {
        self.capacity = max(Self.alignment, capacity - capacity % Self.alignment)
    }

    /// `count` bytes arrive for file offset `offset`.
    package mutating func write(offset: Int64, count: Int) -> [Action] {
        var actions: [Action] = []
        if let start, offset != start + Int64(filled) { actions += flush() }
        if start == nil {
            guard offset % Int64(Self.alignment) == 0 else {
                return actions + [.writeThrough(from: 0, count: count, at: offset)]
            }
            start = offset
        }
        var from = 0
        while from < count, let at = start {
            let taken = min(capacity - filled, count - from)
            actions.append(.stage(from: from, count: taken, to: filled))
            filled += taken
            from += taken
            if filled == capacity {
                actions.append(.writeStage(from: 0, count: capacity, at: at, direct: true))
                start = at + Int64(capacity)
                filled = 0
            }
        }
        return actions
    }

    /// Everything staged goes to disk now (before a block is recorded, and
    /// before the file is finished or closed): the aligned part directly,
    /// the rest through the page cache. The stage is then placed nowhere,
    /// and the next aligned write starts it again.
    package mutating func flush() -> [Action] {
        defer { (start, filled) = (nil, 0) }
        guard let start, filled > 0 else { return [] }
        let aligned = filled - filled % Self.alignment
        var actions: [Action] = []
        if aligned > 0 { actions.append(.writeStage(from: 0, count: aligned, at: start, direct: true)) }
        if aligned < filled {
            actions.append(.writeStage(from: aligned, count: filled - aligned, at: start + Int64(aligned), direct: false))
        }
        return actions
    }
}
