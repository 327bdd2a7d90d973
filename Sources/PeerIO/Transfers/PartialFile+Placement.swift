import Glibc
import PeerCore
import PeerSystem

/// A received file's last step (issue 12, point 2; issue 44: a batch at
/// once): flushed, marked, renamed into place under a free name, never
/// over a file.
extension PartialFile {
    /// The last step: cuts the file to `size`, restores `mode` and
    /// `mtime`, flushes it to disk, and renames it to `name` or the first
    /// free `name (N)`; returns the name used. The record stays, so a
    /// resumed offer knows the file is done (``discardRecord()``). One file
    /// of ``finishAll(_:)``.
    package func finish(name: String, size: Int64, mode: UInt32, mtime: Int64) throws(SystemError) -> String {
        try Self.finishAll([Finishing(partial: self, name: name, size: size, mode: mode, mtime: mtime)])[0].get()
    }

    /// One file's last step, as ``finishAll(_:)`` takes it.
    package struct Finishing: Sendable {
        /// The file.
        package let partial: PartialFile
        /// The name it lands under (or the first free `name (N)`).
        package let name: String
        /// Its size, mode and time, as offered.
        package let size: Int64, mode: UInt32, mtime: Int64

        /// The step for `partial`.
        package init(partial: PartialFile, name: String, size: Int64, mode: UInt32, mtime: Int64) {
            (self.partial, self.name, self.size, self.mode, self.mtime) = (partial, name, size, mode, mtime)
        }
    }

    /// The last step of several files at once (issue 44: a folder of small
    /// files paid three fsyncs a file, most of its time): each is cut,
    /// given its mode and time, and its writeback started for all of them
    /// at once; then each is flushed, with its record; then each is renamed
    /// into place; then each folder they landed in is flushed once, not
    /// once a file. No file is renamed before its bytes are on disk.
    /// (One `syncfs` for the batch was measured and not kept:
    /// docs/performance.md, "Issue 44".) Returns each file's name or error,
    /// in order.
    package static func finishAll(_ files: [Finishing]) -> [Result<String, SystemError>] {
        settle()
        var results: [Result<String, SystemError>?] = files.map { file in
            failure { () throws(SystemError) in try file.partial.prepare(size: file.size, mode: file.mode, mtime: file.mtime) }
        }
        for (index, file) in files.enumerated() where results[index] == nil {
            results[index] = failure { () throws(SystemError) in try file.partial.flushForPlacement() }
        }
        markPlaced(files, &results)
        for (index, file) in files.enumerated() where results[index] == nil {
            results[index] = Result { () throws(SystemError) in try file.partial.rename(to: file.name) }
        }
        // One flush a folder: the entries of every file renamed into it.
        var flushed: [String: Result<String, SystemError>?] = [:]
        for (index, file) in files.enumerated() {
            guard case .success = results[index], let info = try? file.partial.folder.status() else { continue }
            let key = "\(info.st_dev):\(info.st_ino)"
            if flushed[key] == nil { flushed[key] = .some(failure { () throws(SystemError) in try file.partial.folder.sync() }) }
            if case .some(.some(let failed)) = flushed[key] { results[index] = failed }
        }
        return results.map { $0 ?? .failure(SystemError("finish", errno: EIO, context: "no outcome")) }
    }

    /// Marks the files without a block record in their transfers'
    /// ``PlacedLog``s, one flush a log for the batch, after their bytes are
    /// flushed and before any is renamed; a failed mark fails its files.
    private static func markPlaced(_ files: [Finishing], _ results: inout [Result<String, SystemError>?]) {
        var byLog: [ObjectIdentifier: (log: PlacedLog, entries: [(file: Int, hash: [UInt8])], at: [Int])] = [:]
        for (index, file) in files.enumerated() where results[index] == nil {
            guard let log = file.partial.placed else { continue }
            let hash = file.partial.placedHash
            // An empty file has no block: its slot says only that it is in place.
            guard let hash = hash ?? (file.size == 0 ? [UInt8](repeating: 0, count: BulkCodec.hashLength) : nil) else {
                results[index] = .failure(SystemError("verify", errno: EIO, context: "\(file.partial.partName): no verified block"))
                continue
            }
            byLog[ObjectIdentifier(log), default: (log, [], [])].entries.append((file.partial.index, hash))
            byLog[ObjectIdentifier(log)]!.at.append(index)
        }
        for group in byLog.values {
            guard let failed = failure({ () throws(SystemError) in try group.log.mark(group.entries) }) else { continue }
            for index in group.at { results[index] = failed }
        }
    }

    /// The error `body` threw, as a file's outcome; nil when it did not.
    private static func failure(_ body: () throws(SystemError) -> Void) -> Result<String, SystemError>? {
        do throws(SystemError) {
            try body()
            return nil
        } catch {
            return .failure(error)
        }
    }

    /// Renames the partial file to `name` or the first free `name (N)`.
    private func rename(to name: String) throws(SystemError) -> String {
        var tries = 0
        while true {
            let folder = self.folder
            guard let free = DownloadName.free(name, isTaken: { (try? folder.contains($0)) ?? true }) else {
                throw SystemError("renameat2", errno: EEXIST, context: "no free name for \(name)")
            }
            do throws(SystemError) {
                try folder.renameNoReplace(partName, to: free)
                return free
            } catch where error.errno == EEXIST && tries < 100 {
                // Taken a moment ago: the next free name.
                tries += 1
            }
        }
    }
}
