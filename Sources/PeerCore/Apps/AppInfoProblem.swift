/// Why an app's discovery info is refused (``AppInfo``); the description
/// names the pair and the limit, for the `invalidParams` error.
package enum AppInfoProblem: Error, Equatable, Sendable, CustomStringConvertible {
    /// A pair with no key.
    case emptyKey(String)
    /// A key over 9 characters.
    case keyTooLong(key: String, characters: Int)
    /// A key with a character outside printable ASCII, a space or an `=`.
    case keyInvalid(String)
    /// A value with a control character (C0, DEL or C1): other mDNS
    /// browsers show TXT strings raw, so an ESC or a BEL would reach their
    /// users' terminals (issue 42).
    case valueInvalid(key: String)
    /// The same key twice (ignoring case).
    case duplicateKey(String)
    /// `NAME.KEY=VALUE` over 255 bytes.
    case pairTooLong(key: String, bytes: Int)
    /// The app's strings over ``AppInfo/maxBytes``.
    case tooLong(bytes: Int)

    /// The pair and the limit it broke.
    package var description: String {
        switch self {
        case .emptyKey(let pair): "info '\(pair)': the key is empty"
        case .keyTooLong(let key, let count): "info key '\(key)' is \(count) characters; at most \(TXTRecord.maxKeyLength) are allowed"
        case .keyInvalid(let key): "info key '\(key)' must be printable ASCII without spaces or '='"
        case .valueInvalid(let key): "info '\(key)=…' has a control character in its value; values are text without control characters"
        case .duplicateKey(let key): "info key '\(key)' is given more than once"
        case .pairTooLong(let key, let bytes):
            "info '\(key)=…' is \(bytes) bytes as published (with the app's name); one pair may be at most \(TXTRecord.maxPairBytes)"
        case .tooLong(let bytes): "the app's info would take \(bytes) bytes of the TXT record; one app may take at most \(AppInfo.maxBytes)"
        }
    }
}
