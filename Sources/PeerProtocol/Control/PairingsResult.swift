/// The result of `pairings`.
public struct PairingsResult: Codable, Sendable, Equatable {
    /// Pairings in progress.
    public var pairings: [PairingInfo]

    /// Creates it.
    public init(pairings: [PairingInfo]) { self.pairings = pairings }
}
