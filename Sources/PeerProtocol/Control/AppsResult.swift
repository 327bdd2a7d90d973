/// The result of `apps`.
public struct AppsResult: Codable, Sendable, Equatable {
    /// Every app registered on this host, by name.
    public var apps: [AppRow]

    /// Creates it.
    public init(apps: [AppRow]) { self.apps = apps }
}
