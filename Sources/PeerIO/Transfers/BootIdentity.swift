import Glibc
import PeerCore
import PeerSystem
import PeerProtocol

/// Which boot wrote a block record (``BlockRecord``): a record from another
/// boot may describe bytes a crash never let reach the disk, so its blocks
/// are hashed again before a resume trusts them.
enum BootIdentity {
    /// This boot's 16 bytes: the kernel's boot id, or, where `/proc` hides
    /// it, a token kept in `runtimeDirectory` (emptied at boot).
    static func read(runtimeDirectory: String) -> [UInt8] {
        kernelBootID() ?? token(in: runtimeDirectory)
    }

    /// `/proc/sys/kernel/random/boot_id` as 16 bytes; nil when `/proc`
    /// hides it (systemd's `ProcSubset=pid`).
    private static func kernelBootID() -> [UInt8]? {
        guard let fd = try? FileDescriptor(rawValue: AT_FDCWD).openAt("/proc/sys/kernel/random/boot_id", flags: O_RDONLY) else { return nil }
        defer { fd.close() }
        let hex = String(decoding: (try? fd.read(count: 64, at: 0)) ?? [], as: UTF8.self).filter(\.isHexDigit)
        return FlowID(hex: String(hex.prefix(32)))?.bytes
    }

    /// A random id kept in `directory` (`boot-id`), which is emptied at
    /// boot (`/run/peerd`): the same for every start in one boot, new after
    /// a reboot. Zeros if it cannot be kept (then every resume after a
    /// restart hashes its blocks again, which is safe).
    private static func token(in directory: String) -> [UInt8] {
        let path = directory + "/boot-id"
        let cwd = FileDescriptor(rawValue: AT_FDCWD)
        if let fd = try? cwd.openAt(path, flags: O_RDONLY) {
            defer { fd.close() }
            if let bytes = try? fd.read(count: 16, at: 0), bytes.count == 16 { return bytes }
        }
        let token = Sodium.randomBytes(16)
        guard let fd = try? cwd.openAt(path, flags: O_WRONLY | O_CREAT | O_TRUNC) else { return [UInt8](repeating: 0, count: 16) }
        defer { fd.close() }
        return (try? fd.write(token, at: 0)) != nil ? token : [UInt8](repeating: 0, count: 16)
    }
}
