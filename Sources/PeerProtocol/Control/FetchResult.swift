/// `fetch`: what became of each file asked for, in the order asked.
public struct FetchResult: Codable, Sendable, Equatable {
    /// One per path of the request.
    public var files: [FetchedFile]

    /// Creates it.
    public init(files: [FetchedFile]) { self.files = files }
}
