/// Whether peerd starts itself again with glibc's thread stack cache off
/// (issue 25: idle private memory).
///
/// glibc keeps the stack of every thread that ends (up to 40 MiB of them)
/// for the next thread, and each kept stack stays touched: the 16 KiB
/// below where the thread stopped, its frames above that and its TLS, 16
/// to 24 KiB of private memory apiece. libdispatch's worker threads (which
/// run the actors' jobs and the bulk work) come and go, so an idle daemon
/// carried three to eight such stacks. With `glibc.pthread.stack_cache_size=0`
/// a stack goes back to the system when its thread ends; a new worker maps
/// a fresh one, which costs a `mmap` and nothing per frame.
///
/// A glibc tunable is read only when a program starts, from the
/// environment, so the daemon, before anything else, execs itself once
/// with it added; the unit sets it, so under systemd no exec happens. The
/// decisions are here, pure; `peerd`'s `main` performs them.
///
/// The exec names the binary by its resolved path, not `/proc/self/exe`:
/// the kernel names a process after the last part of the path it was
/// exec'd by, and `exe` is not a name `pgrep peerd`, `pidof`, `killall`,
/// `top` or journald's `_COMM` find (issue 41).
package enum ThreadStackCache {
    /// The environment variable glibc reads its tunables from.
    package static let variable = "GLIBC_TUNABLES"
    /// The tunable, and the value peerd wants.
    package static let tunable = "glibc.pthread.stack_cache_size"
    /// The setting peerd adds.
    package static let setting = tunable + "=0"

    /// The value `GLIBC_TUNABLES` should have, given what it has now
    /// (`nil`: unset), or nil when nothing is to change: the variable
    /// already names the tunable (peerd's own exec, or a user's choice,
    /// which stands), so the exec happens at most once.
    package static func tunables(from current: String?) -> String? {
        guard let current, !current.isEmpty else { return setting }
        let names = current.split(separator: ":").map { $0.split(separator: "=", maxSplits: 1).first.map(String.init) ?? "" }
        if names.contains(tunable) { return nil }
        return current + ":" + setting
    }

    /// The path to exec, given what `readlink("/proc/self/exe")` gave
    /// (nil: it failed): the binary's own path, so the process keeps its
    /// name. `/proc/self/exe` only when there is no usable path (the link
    /// could not be read, is not absolute, or the binary was deleted or
    /// replaced since it started, which the kernel marks " (deleted)"):
    /// the exec still works then, and `processName` puts the name back.
    package static func execPath(resolvedLink: String?) -> String {
        guard let resolvedLink, resolvedLink.hasPrefix("/"), !resolvedLink.hasSuffix(" (deleted)") else {
            return "/proc/self/exe"
        }
        return resolvedLink
    }

    /// The name the process gives itself after starting (nil: keep it):
    /// `program` when the kernel named it `exe`, which happens only after
    /// an exec through `/proc/self/exe`.
    package static func processName(current: String, program: String) -> String? {
        current == "exe" && program != "exe" ? program : nil
    }
}
