import Glibc

extension PeerDaemon {
    /// A transfer holds one descriptor per file it sends: the soft limit
    /// on open files (often 1024) is raised to the hard one.
    static func raiseDescriptorLimit() {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0, limit.rlim_cur < limit.rlim_max else { return }
        limit.rlim_cur = min(limit.rlim_max, 1 << 20)
        _ = setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
    }
}
