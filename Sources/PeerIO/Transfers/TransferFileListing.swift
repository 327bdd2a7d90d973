import PeerCore

/// Which files a ``TransferInfo`` carries (issue 21, point 1.5).
enum TransferFileListing {
    /// None.
    case none
    /// The summary of events and ended transfers (``FileListingPage/summary(count:nameSize:)``).
    case summary
    /// A page of `transfers ID`.
    case page(offset: Int?, max: Int?)

    /// The files listed, of `count`; nil for none.
    func range(count: Int, nameSize: (Int) -> Int) -> Range<Int>? {
        switch self {
        case .none: return nil
        case .summary: return FileListingPage.summary(count: count, nameSize: nameSize)
        case .page(let offset, let max): return FileListingPage.page(count: count, offset: offset, max: max, nameSize: nameSize)
        }
    }
}
