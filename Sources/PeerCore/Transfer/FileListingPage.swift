/// Which files of a transfer a listing carries (issue 21, point 1.5): a
/// list of 100,000 names escaped for JSON once made a 16.8 MB event line.
/// An event carries a short summary; `transfers ID` pages through the rest.
/// Both are bounded by count and by bytes of names, and carry at least one
/// file when any is left, so paging always moves on.
package enum FileListingPage {
    /// The summary in `transferOffered` and kept for an ended transfer:
    /// at most 16 files and 4 KiB of names.
    package static let summaryFiles = 16
    /// Bytes of names in a summary.
    package static let summaryNameBytes = 4096
    /// The most files in one page of `transfers ID` (and the default).
    package static let maxPageFiles = 1000
    /// Bytes of names in one page.
    package static let pageNameBytes = 256 << 10

    /// The files from `offset` that fit `maxFiles` files and `nameBytes`
    /// bytes of names, of `count` files whose name sizes `nameSize` gives.
    package static func range(count: Int, offset: Int, maxFiles: Int, nameBytes: Int, nameSize: (Int) -> Int) -> Range<Int> {
        let start = min(max(0, offset), count)
        var end = start
        var bytes = 0
        while end < count, end - start < max(1, maxFiles) {
            bytes += nameSize(end)
            if end > start, bytes > nameBytes { break }
            end += 1
        }
        return start..<end
    }

    /// The summary's files.
    package static func summary(count: Int, nameSize: (Int) -> Int) -> Range<Int> {
        range(count: count, offset: 0, maxFiles: summaryFiles, nameBytes: summaryNameBytes, nameSize: nameSize)
    }

    /// A page of `transfers ID`: `max` files (default and cap
    /// ``maxPageFiles``) from `offset`.
    package static func page(count: Int, offset: Int?, max: Int?, nameSize: (Int) -> Int) -> Range<Int> {
        range(count: count, offset: offset ?? 0, maxFiles: min(max ?? maxPageFiles, maxPageFiles), nameBytes: pageNameBytes, nameSize: nameSize)
    }
}
