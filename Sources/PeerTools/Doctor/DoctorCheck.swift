import PeerCore

/// One line of `peerctl doctor`: what was checked, how it came out, what
/// was seen, and the fix in one line when it is not fine.
public struct DoctorCheck: Codable, Sendable, Equatable {
    /// The group: `daemons`, `interfaces`, `firewall`, `announcement`,
    /// `peer`, `multicast`.
    public var section: String
    /// The outcome.
    public var status: DoctorStatus
    /// What was checked, as a short sentence of what is true.
    public var title: String
    /// What was seen, when it helps.
    public var detail: String?
    /// How to fix it, in one line.
    public var fix: String?
    /// Whether a failure here keeps peers from being discovered (so
    /// `peerctl add` is the way round it).
    public var discovery: Bool

    /// A check.
    public init(_ section: String, _ status: DoctorStatus, _ title: String, detail: String? = nil, fix: String? = nil, discovery: Bool = false) {
        self.section = section
        self.status = status
        self.title = title
        self.detail = detail
        self.fix = fix
        self.discovery = discovery
    }
}
