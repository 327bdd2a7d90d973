/// What a fetch out of peerd's download directory did (issue 45): the
/// files now in the caller's folder, and the ones that stayed.
public struct FetchSummary: Sendable, Equatable {
    /// Files copied into the folder.
    public var files: Int = 0
    /// Their bytes.
    public var bytes: Int64 = 0
    /// Where each copied file went, as a path in the folder given.
    public var saved: [String] = []
    /// Files that were not copied, with why (each stays in peerd's download
    /// directory).
    public var failed: [(path: String, error: String)] = []

    /// An empty summary.
    public init() {}

    /// Equal when every field is (tuples are not Equatable by themselves).
    public static func == (lhs: FetchSummary, rhs: FetchSummary) -> Bool {
        lhs.files == rhs.files && lhs.bytes == rhs.bytes && lhs.saved == rhs.saved
            && lhs.failed.map(\.path) == rhs.failed.map(\.path) && lhs.failed.map(\.error) == rhs.failed.map(\.error)
    }
}
