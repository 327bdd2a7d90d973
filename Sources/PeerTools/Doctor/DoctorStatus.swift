
/// How one `peerctl doctor` check came out. The raw values are the
/// `--json` output's and are pinned by tests.
package enum DoctorStatus: String, Codable, Sendable, CaseIterable {
    /// Fine.
    case ok = "ok"
    /// Worth a look; discovery may still work.
    case warning = "warning"
    /// Broken: this explains a missing peer (exit status 1).
    case failed = "failed"
    /// Could not be checked here (a tool is missing, no permission).
    case skipped = "skipped"

    /// The mark printed before the check: `[✓]`, `[!]`, `[✗]` or `[-]`.
    package var mark: String {
        switch self {
        case .ok: return "[✓]"
        case .warning: return "[!]"
        case .failed: return "[✗]"
        case .skipped: return "[-]"
        }
    }
}
