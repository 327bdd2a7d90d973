import FoundationEssentials
import PeerSystem

/// The user's download folder, as the XDG user-dirs spec finds it, and
/// where `peerctl fetch` and the desktop programs put a peer's files by
/// default (issue 45). ``folder(environment:userDirs:)`` is pure;
/// ``current()`` reads this process's environment and user-dirs file.
public enum UserDownloads {
    /// This user's download folder, from this process's environment and
    /// `user-dirs.dirs`; nil without a home.
    public static func current() -> String? {
        let environment = ProcessInfo.processInfo.environment
        let configHome = environment["XDG_CONFIG_HOME"] ?? environment["HOME"].map { $0 + "/.config" }
        return folder(environment: environment, userDirs: configHome.flatMap { TextFile.read($0 + "/user-dirs.dirs", limit: 64 * 1024) })
    }

    /// `$XDG_DOWNLOAD_DIR`, else `XDG_DOWNLOAD_DIR="…"` in `userDirs` (the
    /// text of `$XDG_CONFIG_HOME/user-dirs.dirs`, `$HOME` expanded), else
    /// `$HOME/Downloads`; nil without a home.
    public static func folder(environment: [String: String], userDirs: String?) -> String? {
        let home = environment["HOME"].flatMap { $0.isEmpty ? nil : $0 }
        if let set = environment["XDG_DOWNLOAD_DIR"], set.hasPrefix("/") { return set }
        if let userDirs {
            for line in userDirs.split(separator: "\n") where line.hasPrefix("XDG_DOWNLOAD_DIR=") {
                var value = String(line.dropFirst("XDG_DOWNLOAD_DIR=".count))
                if value.hasPrefix("\""), value.hasSuffix("\""), value.count >= 2 { value = String(value.dropFirst().dropLast()) }
                if value.hasPrefix("$HOME"), let home { value = home + value.dropFirst("$HOME".count) }
                if value.hasPrefix("/") { return value }
            }
        }
        return home.map { $0 + "/Downloads" }
    }

    /// The folder a fetch of `folder` (of the download directory) goes to
    /// under `downloads`: its last part, so `host2/photos` lands in
    /// `~/Downloads/photos` and `host2` in `~/Downloads/host2`. A name
    /// that is no folder's (empty, `.`, `..`, starting with a dot, a line
    /// break: a peer's name may be anything) is `peerd`.
    public static func target(for folder: String, downloads: String) -> String {
        let last = folder.split(separator: "/").last.map(String.init) ?? ""
        return downloads + "/" + (last.isEmpty || last.hasPrefix(".") || last.contains(where: \.isNewline) ? "peerd" : last)
    }
}
