package import PeerProtocol

/// A page of one folder of the download directory, as `downloads` answers
/// (issue 45): the rules apart from the disk, tested as a table. Entries
/// are shown in bytewise name order; peerd's own files (a partial file,
/// its record: `.peerd-…`) are never shown, nor, at the top of the default
/// app's directory, the apps' folder (`.apps`), which is theirs.
package enum DownloadListing {
    /// The most entries on one page (and the default).
    package static let maxPage = 1000
    /// The most bytes of names on one page (at least one entry goes).
    package static let maxNameBytes = 256 * 1024
    /// The most entries a folder may have to be listed: sorting them is a
    /// list in memory, so a folder larger than this is refused, not read.
    package static let maxEntries = 200_000

    /// Whether an entry named `name` is shown; `atBase`: the folder is the
    /// top of the default app's download directory.
    package static func shows(_ name: String, atBase: Bool) -> Bool {
        if name.utf8.starts(with: TransferPath.reservedPrefix.utf8) { return false }
        if atBase && name == DownloadListing.appsFolder { return false }
        return true
    }

    /// The apps' folder at the top of the download directory (kept equal
    /// to PeerIO's `DownloadFolder.appsFolder`).
    package static let appsFolder = ".apps"

    /// The page of `entries` (in any order) from `offset`, at most `max`
    /// entries (clamped to 1…``maxPage``) and ``maxNameBytes`` of names.
    package static func page(_ entries: [DownloadEntry], folder: String, offset: Int?, max: Int?) -> DownloadsResult {
        let sorted = entries.sorted { $0.name.utf8.lexicographicallyPrecedes($1.name.utf8) }
        let start = Swift.min(Swift.max(offset ?? 0, 0), sorted.count)
        let limit = Swift.min(Swift.max(max ?? maxPage, 1), maxPage)
        var end = start
        var bytes = 0
        while end < sorted.count, end - start < limit {
            bytes += sorted[end].name.utf8.count
            if bytes > maxNameBytes, end > start { break }
            end += 1
        }
        return DownloadsResult(folder: folder, entries: Array(sorted[start..<end]), entriesOmitted: sorted.count - end)
    }
}
