import FoundationEssentials
import Glibc
import PeerSystem

/// The copy tools a user compares peerd with (issue 44, point 4): one file
/// by `rsync` over ssh beside `scp`, and a folder of many small files by
/// `peerctl send-file`, `scp -r` and `tar | ssh`, each to host 2 through
/// the lab's sshd (port 2222) or peerd. A folder costs what its files
/// cost, not what its bytes do: a thousand small files are a thousand
/// opens, renames and inodes, so it has its own figure, in files a second.
extension Bench {
    /// Files in the folder figure (its name says 2,000).
    static let folderFiles = 2_000
    /// Bytes of each (the folder is 2,000 × 16 KiB, 31 MiB).
    static let folderFileBytes = 16 << 10

    /// ssh's options for the lab's sshd: its key, no host-key prompt, no chatter.
    var sshOptions: [String] {
        ["-p", "2222", "-i", directory + "/userkey", "-o", "StrictHostKeyChecking=no", "-o", "UserKnownHostsFile=/dev/null",
         "-o", "LogLevel=ERROR", "-o", "BatchMode=yes"]
    }

    /// The folder comparison, when the lab has the tools (sshd, scp).
    func folderComparison() -> Comparison {
        Comparison(name: "a folder of 2,000 files of 16 KiB", unit: "files/s", variants: [
            ("peerd send-file", { self.sendFolder() }),
            ("scp -r", { self.scpFolder() }),
            ("tar | ssh tar", { self.tarFolder() }),
        ])
    }

    /// One file by rsync over ssh (whole file: nothing at the other end to
    /// compare with), MiB a second; nil when rsync is not installed.
    func rsync() -> Double? {
        guard Subprocess.run(["sh", "-c", "command -v rsync"]).status == 0 else { return nil }
        let source = self.source, target = directory + "/rsync.bin"
        _ = Subprocess.run(["rm", "-f", target])
        let ssh = (["ssh"] + sshOptions).joined(separator: " ")
        let start = Probes.monotonic()
        let outcome = lab.run(1, ["rsync", "--whole-file", "-e", ssh, source, "root@" + lab["ADDR2"] + ":" + target])
        guard outcome.status == 0 else { return nil }
        return rate(seconds: Probes.monotonic() - start)
    }

    /// The folder the three send: made once a run of peerbench, each file's
    /// bytes its own (random), so no tool can skip one.
    private var folder: String {
        let path = directory + "/bench-folder"
        if access(path + "/done", F_OK) != 0 {
            _ = Subprocess.run(["rm", "-rf", path])
            let script = """
                mkdir -p '\(path)/src' && cd '\(path)/src' && \
                head -c \(Self.folderFiles * Self.folderFileBytes) /dev/urandom | \
                split -a 4 -d -b \(Self.folderFileBytes) - file- && touch '\(path)/done'
                """
            _ = Subprocess.run(["sh", "-c", script])
        }
        return path + "/src"
    }

    /// Files a second, from `seconds`.
    private func filesRate(_ seconds: Double) -> Double { Double(Self.folderFiles) / seconds }

    /// Whether `path` holds the folder's files, all of them whole.
    private func arrived(_ path: String) -> Bool {
        let count = Subprocess.run(["sh", "-c", "find '\(path)' -type f -size \(Self.folderFileBytes)c | wc -l"]).output
        return Int(count.filter { $0.isNumber }) == Self.folderFiles
    }

    /// The folder by `peerctl send-file`, into host 2's downloads.
    private func sendFolder() -> Double? {
        guard connect() else { return nil }
        let folder = self.folder
        _ = Subprocess.run(["rm", "-rf", directory + "/dl2"])
        let start = Probes.monotonic()
        let outcome = lab.run(1, [bin + "/peerctl", "--socket", lab["SOCK1"], "send-file", "host2", folder])
        let seconds = Probes.monotonic() - start
        guard outcome.status == 0, arrived(directory + "/dl2") else { return nil }
        return filesRate(seconds)
    }

    /// The folder by `scp -r`.
    private func scpFolder() -> Double? {
        let folder = self.folder, target = directory + "/scp-folder"
        _ = Subprocess.run(["rm", "-rf", target])
        let start = Probes.monotonic()
        let outcome = lab.run(1, ["scp", "-q", "-r"] + sshOptions.map { $0 == "-p" ? "-P" : $0 } + [folder, "root@" + lab["ADDR2"] + ":" + target])
        let seconds = Probes.monotonic() - start
        guard outcome.status == 0, arrived(target) else { return nil }
        return filesRate(seconds)
    }

    /// The folder by `tar -c | ssh tar -x`, the old trick for many files.
    private func tarFolder() -> Double? {
        let folder = self.folder, target = directory + "/tar-folder"
        _ = Subprocess.run(["rm", "-rf", target])
        let ssh = (["ssh"] + sshOptions + ["root@" + lab["ADDR2"]]).map { "'\($0)'" }.joined(separator: " ")
        let start = Probes.monotonic()
        let outcome = lab.run(1, ["sh", "-c", "tar -C '\(folder)' -cf - . | \(ssh) \"mkdir -p '\(target)' && tar -C '\(target)' -xf -\""])
        let seconds = Probes.monotonic() - start
        guard outcome.status == 0, arrived(target) else { return nil }
        return filesRate(seconds)
    }
}
