extension DaemonStatus {
    /// Whether this daemon takes `channel`'s `receive` and `opened` (0.3.0
    /// on; docs/control-protocol.md, "Message channels"). An older one
    /// ignores both: it hands the peer's messages to every channel and
    /// never says when one is open.
    ///
    ///     if try client.call(.status).takesChannelOptions { … }
    public var takesChannelOptions: Bool { Self.takesChannelOptions(version: version) }

    /// The same for a release named `version` (`"0.2.0"`: false).
    public static func takesChannelOptions(version: String) -> Bool {
        let parts = version.split(separator: ".").map { Int($0) ?? 0 }
        return (parts.first ?? 0, parts.dropFirst().first ?? 0) >= (0, 3)
    }
}
