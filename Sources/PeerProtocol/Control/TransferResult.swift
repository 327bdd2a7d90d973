/// The answer to `sendFile`, `acceptTransfer`, `declineTransfer` and `cancelTransfer`.
public struct TransferResult: Codable, Sendable, Equatable {
    /// The transfer, after the request.
    public var transfer: TransferInfo

    /// Creates it.
    public init(transfer: TransferInfo) { self.transfer = transfer }
}
