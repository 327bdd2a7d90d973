import PeerProtocol

/// Every check of one `peerctl doctor` run, in order, with the summary
/// line and the exit status.
package struct DoctorReport: Codable, Sendable, Equatable {
    /// The checks, in the order they ran.
    package var checks: [DoctorCheck]
    /// The peer asked about, if any.
    package var peer: String?

    /// A report of `checks`.
    package init(checks: [DoctorCheck], peer: String? = nil) {
        self.checks = checks
        self.peer = peer
    }

    /// 1 when a check failed, else 0.
    package var exitStatus: Int32 { checks.contains { $0.status == .failed } ? 1 : 0 }

    /// The last line: counts, and the way round when discovery is what fails.
    package var summary: String {
        let failed = checks.filter { $0.status == .failed }
        let warnings = checks.filter { $0.status == .warning }.count
        var text = failed.isEmpty && warnings == 0 ? "all \(checks.count) checks passed"
            : "\(failed.count) failed, \(warnings) warning\(warnings == 1 ? "" : "s"), \(checks.count) checks"
        if checks.contains(where: { $0.discovery && $0.status != .ok && $0.status != .skipped }) {
            text += "; discovery is impaired: a peer you know the address of is still reachable with 'peerctl add HOST[:PORT]'"
        }
        return text
    }

    /// The text output: one line per check (its detail and fix indented
    /// below it), a blank line, the summary.
    package func render() -> String {
        var lines: [String] = []
        var section = ""
        for check in checks {
            if check.section != section {
                if !section.isEmpty { lines.append("") }
                section = check.section
                lines.append(section.prefix(1).uppercased() + section.dropFirst())
            }
            lines.append("  \(check.status.mark) \(TerminalText.escape(check.title))")
            if let detail = check.detail { lines.append("      \(TerminalText.escape(detail))") }
            if let fix = check.fix, check.status != .ok { lines.append("      fix: \(TerminalText.escape(fix))") }
        }
        lines.append("")
        lines.append(summary)
        return lines.joined(separator: "\n")
    }
}
