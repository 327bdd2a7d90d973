/// One `key = value` line of the configuration file.
public struct ConfigFileEntry: Equatable, Sendable {
    /// The key, such as `port`.
    public var key: String
    /// The value, trimmed.
    public var value: String
    /// The 1-based line number, for errors.
    public var line: Int

    /// Creates an entry.
    public init(key: String, value: String, line: Int) {
        self.key = key
        self.value = value
        self.line = line
    }
}
