/// Splits a byte stream into newline-terminated lines, refusing a line longer
/// than a limit so a peer cannot make us buffer without bound.
public struct LineBuffer: Sendable {
    /// The longest line accepted, without its newline.
    public let maxLineBytes: Int
    private var pending: [UInt8] = []

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
        while let newline = pending[start...].firstIndex(of: UInt8(ascii: "\n")) {
            var line = Array(pending[start..<newline])
            if line.last == UInt8(ascii: "\r") { line.removeLast() }
            if line.count > maxLineBytes { return nil }
            lines.append(line)
            start = newline + 1
        }
        pending.removeFirst(start)
        if pending.count > maxLineBytes { return nil }
        return lines
    }
}
