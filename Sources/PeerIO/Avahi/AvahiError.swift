/// A failed libavahi-client call, with Avahi's error code and text.
public struct AvahiError: Error, Sendable, CustomStringConvertible {
    /// The function, such as `avahi_entry_group_commit`.
    public var call: String
    /// Avahi's error code (`AVAHI_ERR_*`).
    public var code: Int32
    /// `avahi_strerror(code)`.
    public var message: String

    /// Creates an error.
    public init(call: String, code: Int32) {
        self.call = call
        self.code = code
        message = avahiErrorText(code)
    }

    /// `call: message (code)`.
    public var description: String { "\(call): \(message) (\(code))" }
}
