import Glibc
import PeerCore
import PeerSystem

/// Where received files land (issue 12, point 2): `--download-dir`, a
/// folder per peer in it, and the folders of each file's path inside that.
/// Below the download directory nothing is followed: every component is
/// opened with `O_NOFOLLOW`, names were checked by ``TransferPath``, so a
/// file can land nowhere but under its peer's folder.
public enum DownloadFolder {
    /// Opens the download directory, making it (and its parents) if missing.
    public static func openRoot(_ path: String) throws(SystemError) -> FileDescriptor {
        var built = ""
        for component in path.split(separator: "/") {
            built += "/" + component
            if mkdir(built, 0o755) != 0 && errno != EEXIST { throw SystemError("mkdir", errno: errno, context: built) }
        }
        let fd = try Syscall.call("open", path) { open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC) }
        return FileDescriptor(rawValue: fd)
    }

    /// The folder name for a peer: its display name when that is one plain
    /// path component not starting with a dot, else its peer id.
    public static func peerFolderName(name: String, peerID: String) -> String {
        if case .success(let path) = TransferPath.check(name), path.components.count == 1, !name.hasPrefix(".") { return name }
        return peerID
    }

    /// Opens the folder holding `path` under `peerFolder` (in the download
    /// directory `root`), making the folders on the way when `create`.
    public static func folder(of path: TransferPath, peerFolder: String, root: FileDescriptor, create: Bool) throws(SystemError) -> FileDescriptor {
        var current = try root.directory(peerFolder, create: create)
        for component in path.components.dropLast() {
            let next: FileDescriptor
            do { next = try current.directory(component, create: create) } catch {
                current.close()
                throw error
            }
            current.close()
            current = next
        }
        return current
    }
}
