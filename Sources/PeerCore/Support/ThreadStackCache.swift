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
/// with it added. The decision is here, pure; `peerd`'s `main` performs it.
public enum ThreadStackCache {
    /// The environment variable glibc reads its tunables from.
    public static let variable = "GLIBC_TUNABLES"
    /// The tunable, and the value peerd wants.
    public static let tunable = "glibc.pthread.stack_cache_size"
    /// The setting peerd adds.
    public static let setting = tunable + "=0"

    /// The value `GLIBC_TUNABLES` should have, given what it has now
    /// (`nil`: unset), or nil when nothing is to change: the variable
    /// already names the tunable (peerd's own exec, or a user's choice,
    /// which stands), so the exec happens at most once.
    public static func tunables(from current: String?) -> String? {
        guard let current, !current.isEmpty else { return setting }
        let names = current.split(separator: ":").map { $0.split(separator: "=", maxSplits: 1).first.map(String.init) ?? "" }
        if names.contains(tunable) { return nil }
        return current + ":" + setting
    }
}
