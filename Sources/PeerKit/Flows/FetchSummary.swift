/// What a fetch out of peerd's download directory did (issue 45): the
/// files now in the caller's folder, and the ones that stayed. It is
/// also `peerctl fetch --json`'s answer.
public struct FetchSummary: Codable, Sendable, Equatable {
    /// One file that was not copied, and why (it stays in peerd's
    /// download directory).
    public struct Failure: Codable, Sendable, Equatable {
        /// Its path below the folder fetched.
        public var path: String
        /// Why.
        public var error: String
    }

    /// The folder the files went to.
    public var into: String
    /// Files copied into the folder.
    public var files: Int = 0
    /// Their bytes.
    public var bytes: Int64 = 0
    /// Where each copied file went, as a path in the folder given.
    public var saved: [String] = []
    /// Files that were not copied.
    public var failed: [Failure] = []

    /// An empty summary of a fetch into `into`.
    public init(into: String) { self.into = into }
}
