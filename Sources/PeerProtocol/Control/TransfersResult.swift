/// `transfers`: transfers in progress and recent ones, newest first.
public struct TransfersResult: Codable, Sendable, Equatable {
    /// The transfers.
    public var transfers: [TransferInfo]

    /// Creates it.
    public init(transfers: [TransferInfo]) { self.transfers = transfers }
}
