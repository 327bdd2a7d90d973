/// Constants of the control protocol (newline-delimited JSON on a Unix
/// socket), specified in docs/control-protocol.md.
public enum ControlProtocol {
    /// The protocol version this build speaks; every message carries it as `v`.
    public static let version = 1
    /// The socket a system peerd listens on, and clients look for.
    public static let systemSocketPath = "/run/peerd/peerd.sock"
    /// The longest request line the daemon reads when no `send` can carry a
    /// message; longer is a `badRequest` and the connection closes (a client
    /// cannot make the daemon buffer without bound).
    public static let maxRequestLineBytes = 64 * 1024
    /// The longest request line from a client outside the daemon's group
    /// (`--public-read`): its methods take no parameters worth more.
    public static let maxOthersRequestLineBytes = 4096
    /// A request line must be finished this long after its first byte
    /// arrived, or the connection gets `badRequest` and closes.
    public static let incompleteLineTimeout: Double = 15
    /// A client outside the group that sends no request for this long is closed.
    public static let othersIdleTimeout: Double = 30
    /// The longest request line for a daemon whose messages may be
    /// `maxMessage` bytes: room for the message in base64 plus the envelope.
    public static func maxRequestLineBytes(maxMessage: Int) -> Int {
        maxRequestLineBytes + (maxMessage + 2) / 3 * 4
    }
    /// The most file descriptors a connection may hold that no request has
    /// used yet (a `sendFile` or `pipe` takes them in order).
    public static let maxHeldDescriptors = 256
    /// The longest response or event line a client accepts.
    public static let maxResponseLineBytes = 64 * 1024 * 1024
}
