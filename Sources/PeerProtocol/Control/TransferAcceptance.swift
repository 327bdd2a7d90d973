/// Who accepted a received transfer: TRANSFER's `acceptedBy` (since
/// 0.4.0). The field stays a string on the wire, so that a client of this
/// release reads a transfer a later release accepted some other way.
public enum TransferAcceptance: String, Codable, Sendable, CaseIterable {
    /// A client's `acceptTransfer`.
    case client = "client"
    /// `--auto-accept`.
    case policy = "policy"
    /// The peer's Quick Save rule (`quickSave`).
    case quickSave = "quickSave"
}
