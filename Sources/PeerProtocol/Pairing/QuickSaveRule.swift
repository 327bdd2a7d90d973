/// A paired peer's Quick Save rule (issue 45: "trusted peers, no
/// prompt"): its offers are accepted without asking, whatever
/// `--auto-accept` says, and the user `uid` wants its files moved into
/// `folder`. peerd keeps the rule with the pairing (`trust.json`) and
/// never opens `folder` itself (the service cannot see home folders): that
/// user's desktop agent, or `peerctl fetch`, takes the files there.
public struct QuickSaveRule: Codable, Sendable, Equatable {
    /// The local user the rule belongs to: only that user (or root)
    /// changes it, and only that user's agent moves the files.
    public var uid: UInt32
    /// The folder the user chose, an absolute path on this host.
    public var folder: String

    /// Creates a rule.
    public init(uid: UInt32, folder: String) {
        self.uid = uid
        self.folder = folder
    }
}
