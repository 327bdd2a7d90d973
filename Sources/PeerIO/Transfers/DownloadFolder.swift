import Glibc
import PeerCore
import PeerSystem
import PeerProtocol

/// Where received files land (issue 12, point 2): `--download-dir`, a
/// folder per peer in it, and the folders of each file's path inside that.
/// Below the download directory nothing is followed: every component is
/// opened with `O_NOFOLLOW`, names were checked by ``TransferPath``, so a
/// file can land nowhere but under its peer's folder.
package enum DownloadFolder {
    /// Opens the download directory, making it (and its parents) if missing.
    package static func openRoot(_ path: String) throws(SystemError) -> FileDescriptor {
        try FileDescriptor.openFolder(path, making: 0o755)
    }

    /// The folder name for a peer: its display name when that is one plain
    /// path component not starting with a dot, else its peer id.
    package static func peerFolderName(name: String, peerID: String) -> String {
        if case .success(let path) = TransferPath.check(name), path.components.count == 1, !name.hasPrefix(".") { return name }
        return peerID
    }

    /// The folder below the download directory for `app`'s files from a
    /// peer: the peer's folder for the default app; `.apps/APP/` and the
    /// peer's folder for another (issue 23, point 4). A peer folder never
    /// starts with a dot, so no default-app peer's files reach `.apps`,
    /// and app names (``AppName``) are plain components.
    package static func peerFolder(name: String, peerID: String, app: AppName) -> String {
        let peer = peerFolderName(name: name, peerID: peerID)
        return app.isDefault ? peer : "\(appsFolder)/\(app.text)/\(peer)"
    }

    /// The folder of the apps' downloads, in the download directory.
    package static let appsFolder = ".apps"

    /// Opens the folder holding `path` under `peerFolder` (in the download
    /// directory `root`), making the folders on the way when `create`.
    package static func folder(of path: TransferPath, peerFolder: String, root: FileDescriptor, create: Bool) throws(SystemError) -> FileDescriptor {
        var made: [[String]] = []
        return try folder(of: path, peerFolder: peerFolder, root: root, create: create, made: &made)
    }

    /// ``folder(of:peerFolder:root:create:)``, adding to `made` each folder
    /// this call made (components from the download directory), so a
    /// transfer that fails can take away what it left (issue 21, point 1.3).
    package static func folder(of path: TransferPath, peerFolder: String, root: FileDescriptor, create: Bool,
                              made: inout [[String]]) throws(SystemError) -> FileDescriptor {
        // The peer folder is one component, or three for an app's.
        let base = peerFolder.split(separator: "/").map(String.init)
        var current = try step(root, base[0], create: create, at: [base[0]], made: &made)
        let rest = Array(base.dropFirst()) + path.components.dropLast()
        for (depth, component) in rest.enumerated() {
            let next: FileDescriptor
            do {
                next = try step(current, component, create: create, at: Array((base.prefix(1) + rest).prefix(depth + 2)), made: &made)
            } catch {
                current.close()
                throw error
            }
            current.close()
            current = next
        }
        return current
    }

    /// Opens folder `name` in `parent`, making it when `create` and noting
    /// it in `made` when this call made it.
    private static func step(_ parent: FileDescriptor, _ name: String, create: Bool, at components: [String],
                             made: inout [[String]]) throws(SystemError) -> FileDescriptor {
        if create {
            if Glibc.mkdirat(parent.rawValue, name, 0o700) == 0 {
                made.append(components)
            } else if errno != EEXIST {
                throw SystemError("mkdirat", errno: errno, context: name)
            }
        }
        return try parent.directory(name, create: false)
    }

    /// Removes the folders in `made` that are empty, deepest first; one
    /// that holds anything (another transfer's file, the user's) stays.
    package static func removeEmpty(_ made: [[String]], root: FileDescriptor) {
        for components in made.sorted(by: { $0.count > $1.count }) {
            var parent = root
            var opened: [FileDescriptor] = []
            defer { opened.forEach { $0.close() } }
            var reached = true
            for component in components.dropLast() {
                guard let next = try? parent.directory(component, create: false) else { reached = false; break }
                opened.append(next)
                parent = next
            }
            guard reached, let last = components.last else { continue }
            _ = Glibc.unlinkat(parent.rawValue, last, AT_REMOVEDIR)
        }
    }
}
