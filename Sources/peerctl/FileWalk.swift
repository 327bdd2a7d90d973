import Glibc
import PeerSystem
import PeerProtocol

/// The files `send-file` offers: each argument that is a file, and every
/// regular file under each argument that is a directory, with the names
/// the receiver sees (`file`, or `dir/sub/file`). Symlinks are never
/// followed: they are skipped, and said so.
struct FileWalk {
    /// One file to send.
    struct Item {
        /// The path to open here.
        var path: String
        /// What the offer says of it.
        var entry: SendFileEntry
    }

    private(set) var items: [Item] = []
    /// What was left out, and why (for stderr).
    private(set) var skipped: [String] = []

    /// Walks `arguments`; a missing argument or a name a receiver would
    /// refuse is an error.
    init(_ arguments: [String]) throws(UsageError) {
        for argument in arguments {
            var info = stat()
            guard lstat(argument, &info) == 0 else {
                throw UsageError("cannot send '\(argument)': \(String(cString: strerror(errno)))")
            }
            let trimmed = argument.hasSuffix("/") && argument.count > 1 ? String(argument.dropLast()) : argument
            let base = trimmed.split(separator: "/").last.map(String.init) ?? trimmed
            try visit(path: trimmed, name: base, info: info)
            guard items.count <= TransferLimits.maxFiles else { throw UsageError("more than \(TransferLimits.maxFiles) files; send them in parts") }
        }
    }

    private mutating func visit(path: String, name: String, info: stat) throws(UsageError) {
        switch info.st_mode & S_IFMT {
        case S_IFREG:
            if case .failure(let refusal) = TransferPath.check(name) {
                throw UsageError("cannot send '\(path)': \(refusal.description); rename it first")
            }
            items.append(Item(path: path, entry: SendFileEntry(name: name, size: Int64(info.st_size), mode: UInt32(info.st_mode & 0o777),
                                                              mtime: Int64(info.st_mtim.tv_sec))))
        case S_IFDIR:
            guard let directory = opendir(path) else { throw UsageError("cannot read '\(path)': \(String(cString: strerror(errno)))") }
            var names: [String] = []
            while let entry = readdir(directory) {
                let child = withUnsafeBytes(of: entry.pointee.d_name) { raw in String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self) }
                if child != "." && child != ".." { names.append(child) }
            }
            closedir(directory)
            for child in names.sorted() {
                var childInfo = stat()
                let childPath = path + "/" + child
                guard lstat(childPath, &childInfo) == 0 else { continue }
                try visit(path: childPath, name: name + "/" + child, info: childInfo)
            }
        case S_IFLNK:
            skipped.append("\(path): a symlink (not followed)")
        default:
            skipped.append("\(path): not a regular file")
        }
    }
}
