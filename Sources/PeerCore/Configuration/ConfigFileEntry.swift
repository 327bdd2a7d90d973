/// One `key = value` line of the configuration file.
package struct ConfigFileEntry: Equatable, Sendable {
    /// The key, such as `port`.
    package var key: String
    /// The value, trimmed.
    package var value: String
    /// The 1-based line number, for errors.
    package var line: Int

    /// Creates an entry.
    package init(key: String, value: String, line: Int) {
        self.key = key
        self.value = value
        self.line = line
    }
}
