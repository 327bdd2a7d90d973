/// Which way a transfer goes, seen from this host.
public enum TransferDirection: String, Codable, Sendable, CaseIterable {
    /// This host sends.
    case send = "send"
    /// This host receives.
    case receive = "receive"
}
