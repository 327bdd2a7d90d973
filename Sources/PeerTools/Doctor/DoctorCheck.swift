
/// One line of `peerctl doctor`: what was checked, how it came out, what
/// was seen, and the fix in one line when it is not fine.
package struct DoctorCheck: Codable, Sendable, Equatable {
    /// The group: `daemons`, `interfaces`, `firewall`, `announcement`,
    /// `peer`, `multicast`.
    package var section: String
    /// The outcome.
    package var status: DoctorStatus
    /// What was checked, as a short sentence of what is true.
    package var title: String
    /// What was seen, when it helps.
    package var detail: String?
    /// How to fix it, in one line.
    package var fix: String?
    /// Whether a failure here keeps peers from being discovered (so
    /// `peerctl add` is the way round it).
    package var discovery: Bool

    /// A check.
    package init(_ section: String, _ status: DoctorStatus, _ title: String, detail: String? = nil, fix: String? = nil, discovery: Bool = false) {
        self.section = section
        self.status = status
        self.title = title
        self.detail = detail
        self.fix = fix
        self.discovery = discovery
    }
}
