import Glibc

/// Bytes waiting to be written to one non-blocking socket, bounded.
///
/// Lines are queued whole. When the bound would be passed the queue reports
/// overflow instead of growing; ``truncateToCurrentLine()`` then keeps only
/// the rest of a line already partly sent, so a final message can follow on
/// a clean line boundary.
///
/// It also counts what its bytes cost in memory (``memoryCost``: the
/// buffers' capacities, not their lengths; issue 21, point 4) and how many
/// of its bytes are answers a peer asked for (``answerBytes``: pongs), so
/// the watermarks can bound both.
package struct OutboundQueue: Sendable {
    /// The most bytes held.
    package let limit: Int
    private var chunks: [[UInt8]] = []
    private var offset = 0
    /// Bytes held and not yet written.
    package private(set) var byteCount = 0
    /// What the held buffers cost: their capacities plus a header each.
    package private(set) var memoryCost = 0
    /// Bytes of answers (``appendCoalescing(_:chunk:answer:)``) not yet
    /// written.
    package private(set) var answerBytes = 0
    /// Bytes ever queued and ever written: positions in one stream, so an
    /// answer is known to be out once the written position passes its end.
    private var queuedTotal = 0
    private var writtenTotal = 0
    /// Where answers lie in that stream, oldest first: consecutive answers
    /// share one run, so a flood of pings makes one entry, not one each.
    private var answerRuns: [Range<Int>] = []

    /// What one buffer costs beyond its capacity (the array's header and
    /// the allocator's own), so a thousand tiny buffers cost what they do.
    package static let bufferOverhead = 48
    /// A queue holding at most `limit` bytes.
    package init(limit: Int) { self.limit = limit }

    /// Whether nothing is waiting.
    package var isEmpty: Bool { byteCount == 0 }

    /// Queues a line; false (and nothing queued) if it would pass the limit.
    /// An empty queue takes any one line, so a line longer than the limit
    /// (a large message in base64) can still reach a client that keeps up.
    /// `extra` raises the bound for this line alone (room for one large
    /// message event on top of a backlog of small ones).
    package mutating func append(_ line: [UInt8], extra: Int = 0) -> Bool {
        guard byteCount == 0 || byteCount + line.count <= limit + extra else { return false }
        appendUnbounded(line)
        return true
    }

    /// Queues without the bound: for a final message after truncation.
    package mutating func appendUnbounded(_ line: [UInt8]) {
        guard !line.isEmpty else { return }
        memoryCost += line.capacity + Self.bufferOverhead
        chunks.append(line)
        byteCount += line.count
        queuedTotal += line.count
    }

    /// Queues bytes of a stream (no line boundaries to keep), joined to the
    /// last chunk while it has not started going out and stays under
    /// `chunk` bytes: many small frames leave in one `send`. A chunk grows
    /// by doubling, capped at `chunk` (never past it: a doubled 64 KiB
    /// buffer would cost twice its bytes), and ``memoryCost`` counts its
    /// capacity, so what the growth costs is bounded. (Giving every chunk
    /// its 64 KiB at once churned the heap with 64 KiB buffers for a pair
    /// of acks: a suspect for the fragments the soak's memory check found.)
    /// `answer` marks bytes the peer asked for (a pong), counted in
    /// ``answerBytes`` until written.
    package mutating func appendCoalescing(_ bytes: [UInt8], chunk: Int = 64 * 1024, answer: Bool = false) {
        guard !bytes.isEmpty else { return }
        let start = queuedTotal
        if let last = chunks.indices.last, last > 0 || offset == 0, chunks[last].count + bytes.count <= chunk {
            let before = chunks[last].capacity
            let needed = chunks[last].count + bytes.count
            if before < needed { chunks[last].reserveCapacity(min(chunk, max(needed, 2 * before))) }
            chunks[last].append(contentsOf: bytes)
            memoryCost += chunks[last].capacity - before
            byteCount += bytes.count
            queuedTotal += bytes.count
        } else {
            appendUnbounded(bytes)
        }
        guard answer else { return }
        answerBytes += bytes.count
        if let run = answerRuns.last, run.upperBound == start {
            answerRuns[answerRuns.count - 1] = run.lowerBound..<queuedTotal
        } else {
            answerRuns.append(start..<queuedTotal)
        }
    }

    /// Chunks waiting (a test's view of coalescing).
    package var chunkCount: Int { chunks.count }

    /// Drops every whole line not yet started.
    package mutating func truncateToCurrentLine() {
        guard !chunks.isEmpty else { return }
        let current = chunks[0]
        chunks = offset > 0 ? [current] : []
        byteCount = offset > 0 ? current.count - offset : 0
        memoryCost = offset > 0 ? current.capacity + Self.bufferOverhead : 0
        // What was dropped will never be written: answers in it are gone.
        queuedTotal = writtenTotal + byteCount
        // A run wholly in what was dropped (or already written) keeps
        // nothing: its bounds cross, and no range is made of them (that
        // trapped when a session closed with pongs queued behind the line
        // going out).
        answerRuns = answerRuns.compactMap { run in
            let lower = max(run.lowerBound, writtenTotal), upper = min(run.upperBound, queuedTotal)
            return lower < upper ? lower..<upper : nil
        }
        answerBytes = answerRuns.reduce(0) { $0 + $1.count }
    }

    /// The most chunks handed to one vectored write.
    package static let maxVectors = 16

    /// Writes as much as `write` takes, up to ``maxVectors`` chunks per
    /// call (one `sendmsg` for several frames); `write` returns bytes
    /// written or nil when it would block. Returns true when drained.
    /// Each chunk written whole goes to `recycle` (its buffer may be reused).
    package mutating func flushVectored(_ write: (UnsafeBufferPointer<iovec>) throws -> Int?,
                                       recycle: (consuming [UInt8]) -> Void = { _ in }) rethrows -> Bool {
        while !chunks.isEmpty {
            let count = min(chunks.count, Self.maxVectors)
            var vectors: [iovec] = []
            vectors.reserveCapacity(count)
            let written = try withVectors(0, count, &vectors, write)
            guard let written else { return false }
            advance(by: written, recycle: recycle)
        }
        return true
    }

    /// Holds chunks `index..<count` as iovecs while `write` runs (an
    /// array's bytes are pinned only inside its closure, so they nest).
    private func withVectors(_ index: Int, _ count: Int, _ vectors: inout [iovec],
                             _ write: (UnsafeBufferPointer<iovec>) throws -> Int?) rethrows -> Int? {
        guard index < count else { return try vectors.withUnsafeBufferPointer { try write($0) } }
        let skip = index == 0 ? offset : 0
        return try chunks[index].withUnsafeBytes { raw in
            vectors.append(iovec(iov_base: UnsafeMutableRawPointer(mutating: raw.baseAddress! + skip), iov_len: raw.count - skip))
            return try withVectors(index + 1, count, &vectors, write)
        }
    }

    /// Drops `count` written bytes from the front.
    private mutating func advance(by count: Int, recycle: (consuming [UInt8]) -> Void) {
        var left = count
        byteCount -= count
        noteWritten(count)
        while left > 0, let first = chunks.first {
            let rest = first.count - offset
            if left >= rest {
                left -= rest
                memoryCost -= first.capacity + Self.bufferOverhead
                recycle(chunks.removeFirst())
                offset = 0
            } else {
                offset += left
                left = 0
            }
        }
    }

    /// Writes as much as `write` takes; `write` returns bytes written or nil
    /// when it would block. Returns true when the queue drained.
    package mutating func flush(_ write: (UnsafeRawBufferPointer) throws -> Int?) rethrows -> Bool {
        while let first = chunks.first {
            let written = try first.withUnsafeBytes { raw in try write(UnsafeRawBufferPointer(rebasing: raw[offset...])) }
            guard let written else { return false }
            offset += written
            byteCount -= written
            noteWritten(written)
            if offset == first.count {
                memoryCost -= first.capacity + Self.bufferOverhead
                chunks.removeFirst()
                offset = 0
            }
        }
        return true
    }

    /// Moves the written position on by `count`: answers wholly behind it
    /// are out, and stop counting.
    private mutating func noteWritten(_ count: Int) {
        writtenTotal += count
        var done = 0
        while done < answerRuns.count, answerRuns[done].lowerBound < writtenTotal {
            let run = answerRuns[done]
            let leaving = min(run.upperBound, writtenTotal) - run.lowerBound
            answerBytes -= leaving
            if run.upperBound <= writtenTotal {
                done += 1
            } else {
                answerRuns[done] = writtenTotal..<run.upperBound
                break
            }
        }
        if done > 0 { answerRuns.removeFirst(done) }
    }
}
