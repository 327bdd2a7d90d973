import Glibc
import PeerCore
import PeerSystem
import PeerProtocol

/// Removes what abandoned transfers left (issue 21, point 1.4): partial
/// files and block records (``LeftoverFile``) under the download directory
/// older than the partial-file lifetime, and acceptance records in the
/// state directory just as old. Runs off the main actor (the disk queue),
/// at start and then once an hour. Nothing is followed: folders are
/// opened with `O_NOFOLLOW`, and the walk goes at most 64 folders deep.
enum LeftoverSweep {
    /// What one sweep removed.
    struct Outcome: Sendable, Equatable {
        /// Files removed.
        var files = 0
        /// Their bytes.
        var bytes: Int64 = 0
    }

    /// The deepest folder visited (a path is at most 4,096 bytes anyway).
    static let maxDepth = 64

    /// Sweeps `downloads` and the acceptance records in `records`.
    static func run(downloads: String, records: String, lifetime: Int64, now: Int64, held: Set<FlowID>) -> Outcome {
        var outcome = Outcome()
        let cwd = FileDescriptor(rawValue: AT_FDCWD)
        if let root = try? cwd.openAt(downloads, flags: O_RDONLY | O_DIRECTORY) {
            sweep(root, depth: 0, lifetime: lifetime, now: now, held: held, into: &outcome)
            root.close()
        }
        if let folder = try? cwd.openAt(records, flags: O_RDONLY | O_DIRECTORY) {
            folder.forEachEntry { name, _ in
                // An acceptance record, or a record of files in place (``PlacedLog``).
                guard let suffix = [".accepted", ".placed"].first(where: name.hasSuffix),
                      let flow = FlowID(hex: String(name.dropLast(suffix.count))) else { return true }
                expire(name, in: folder, flow: flow, lifetime: lifetime, now: now, held: held, into: &outcome)
                return true
            }
            folder.close()
        }
        return outcome
    }

    private static func sweep(_ folder: FileDescriptor, depth: Int, lifetime: Int64, now: Int64, held: Set<FlowID>, into outcome: inout Outcome) {
        folder.forEachEntry { name, kind in
            if kind == .folder {
                guard depth < maxDepth, let sub = try? folder.openAt(name, flags: O_RDONLY | O_DIRECTORY) else { return true }
                sweep(sub, depth: depth + 1, lifetime: lifetime, now: now, held: held, into: &outcome)
                sub.close()
            } else if let leftover = LeftoverFile.parse(name) {
                expire(name, in: folder, flow: leftover.flow, lifetime: lifetime, now: now, held: held, into: &outcome)
            }
            return true
        }
    }

    private static func expire(_ name: String, in folder: FileDescriptor, flow: FlowID, lifetime: Int64, now: Int64, held: Set<FlowID>,
                               into outcome: inout Outcome) {
        var info = stat()
        guard fstatat(folder.rawValue, name, &info, AT_SYMLINK_NOFOLLOW) == 0, info.st_mode & S_IFMT == S_IFREG,
              LeftoverFile.isExpired(modified: Int64(info.st_mtim.tv_sec), now: now, lifetime: lifetime, flow: flow, held: held),
              unlinkat(folder.rawValue, name, 0) == 0 else { return }
        outcome.files += 1
        outcome.bytes += Int64(info.st_size)
    }
}
