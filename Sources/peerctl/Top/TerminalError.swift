import Glibc

/// A terminal call that failed.
struct TerminalError: Error, CustomStringConvertible {
    /// The call and its error.
    let description: String
    /// The failure of `call` with errno `code`.
    init(_ call: String, _ code: Int32) { description = "\(call): \(String(cString: strerror(code)))" }
}
