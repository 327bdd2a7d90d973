/// A failed libavahi-client call, with Avahi's error code and text.
package struct AvahiError: Error, Sendable, CustomStringConvertible {
    /// The function, such as `avahi_entry_group_commit`.
    package var call: String
    /// Avahi's error code (`AVAHI_ERR_*`).
    package var code: Int32
    /// `avahi_strerror(code)`.
    package var message: String

    /// Creates an error.
    package init(call: String, code: Int32) {
        self.call = call
        self.code = code
        message = avahiErrorText(code)
    }

    /// `call: message (code)`.
    package var description: String { "\(call): \(message) (\(code))" }
}
