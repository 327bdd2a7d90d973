/// Splits a byte stream into newline-terminated lines, refusing a line longer
/// than a limit so a peer cannot make us buffer without bound.
///
/// Work is linear in the bytes appended: each byte is searched for a newline
/// once, however many reads a long line takes to arrive.
public struct LineBuffer: Sendable {
    /// The longest line accepted, without its newline.
    public let maxLineBytes: Int
    private var pending: [UInt8] = []
    /// The prefix of `pending` already searched (it holds no newline).
    private var scanned = 0

    /// A buffer refusing lines over `maxLineBytes`.
    public init(maxLineBytes: Int) { self.maxLineBytes = maxLineBytes }

    /// Bytes held that do not yet form a whole line.
    public var pendingCount: Int { pending.count }

    /// Adds bytes; returns the complete lines (without `\n`, a trailing `\r`
    /// removed) or nil if a line exceeded the limit.
    public mutating func append(_ bytes: some Collection<UInt8>) -> [[UInt8]]? {
        pending.append(contentsOf: bytes)
        var lines: [[UInt8]] = []
        var start = 0
        var searchFrom = scanned
        while let newline = pending[searchFrom...].firstIndex(of: UInt8(ascii: "\n")) {
            let end = newline > start && pending[newline - 1] == UInt8(ascii: "\r") ? newline - 1 : newline
            if end - start > maxLineBytes { return nil }
            lines.append(Array(pending[start..<end]))
            start = newline + 1
            searchFrom = start
        }
        if start > 0 {
            // What remains came after the last newline: only new bytes move.
            pending.removeFirst(start)
        }
        scanned = pending.count
        if pending.count > maxLineBytes { return nil }
        // A long line's storage goes back once it has been handed on.
        if pending.isEmpty && pending.capacity > 256 * 1024 { pending = [] }
        return lines
    }
}
