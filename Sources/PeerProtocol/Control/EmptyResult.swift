/// The result of a request that only acknowledges.
public struct EmptyResult: Codable, Sendable, Equatable {
    /// Creates it.
    public init() {}
}
