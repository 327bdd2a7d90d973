import Glibc
import PeerCore
import PeerSystem

/// The note that a transfer was accepted, and which files
/// (`.peerd-FLOW.accepted` in the peer's folder: the numbers, one per
/// line). When the same offer comes again after the daemon restarted, the
/// note accepts the same files without asking anyone, and the transfer
/// resumes. It goes when the transfer ends.
enum AcceptanceNote {
    static func name(_ flow: FlowID) -> String { ".peerd-\(flow).accepted" }

    /// Writes the note.
    static func write(flow: FlowID, files: [Int], peerFolder: String, root: FileDescriptor) throws(SystemError) {
        let folder = try root.directory(peerFolder, create: true)
        defer { folder.close() }
        let fd = try folder.openAt(name(flow), flags: O_WRONLY | O_CREAT | O_TRUNC)
        defer { fd.close() }
        try fd.writeAll(Array(files.map(String.init).joined(separator: "\n").utf8))
    }

    /// The files the note accepts; nil without a note.
    static func read(flow: FlowID, peerFolder: String, root: FileDescriptor) -> Set<Int>? {
        guard let folder = try? root.directory(peerFolder, create: false) else { return nil }
        defer { folder.close() }
        guard let fd = try? folder.openAt(name(flow), flags: O_RDONLY) else { return nil }
        defer { fd.close() }
        let bytes = (try? fd.read(count: 1 << 20, at: 0)) ?? []
        return Set(String(decoding: bytes, as: UTF8.self).split(separator: "\n").compactMap { Int($0) })
    }

    /// Removes the note.
    static func remove(flow: FlowID, peerFolder: String, root: FileDescriptor) {
        guard let folder = try? root.directory(peerFolder, create: false) else { return }
        try? folder.remove(name(flow))
        folder.close()
    }
}
