import Dispatch
import PeerCore
import PeerSystem

/// The download directory as the receiving side uses it: opened (and
/// made) on first use, opened again if it was removed meanwhile (a user
/// cleaning up), and the queue where the slow last steps of files run
/// (fsync, rename) and the sweeps of leftovers.
@MainActor
final class DownloadRoot {
    /// The directory's path, as configured.
    let path: String
    /// Where the last step of each file (fsync, rename) and sweeps run.
    let disk = DispatchQueue(label: "peerd.transfers", qos: .utility)
    private var descriptor: FileDescriptor?

    /// The download directory at `path` (nothing is opened yet).
    init(path: String) { self.path = path }

    /// The directory, open.
    func open() throws(SystemError) -> FileDescriptor {
        if let descriptor {
            if let info = try? descriptor.status(), info.st_nlink > 0 { return descriptor }
            descriptor.close()
            self.descriptor = nil
        }
        let fd = try DownloadFolder.openRoot(path)
        descriptor = fd
        return fd
    }

    /// Closes the directory (shutdown).
    func close() {
        descriptor?.close()
        descriptor = nil
    }
}
