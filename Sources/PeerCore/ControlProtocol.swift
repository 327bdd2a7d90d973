/// Constants of the control protocol (newline-delimited JSON on a Unix
/// socket), specified in docs/control-protocol.md.
public enum ControlProtocol {
    /// The protocol version this build speaks; every message carries it as `v`.
    public static let version = 1
    /// The longest request line the daemon reads; longer is a `badRequest`
    /// and the connection closes (a client cannot make the daemon buffer
    /// without bound).
    public static let maxRequestLineBytes = 64 * 1024
    /// The longest response or event line a client accepts.
    public static let maxResponseLineBytes = 16 * 1024 * 1024
}
