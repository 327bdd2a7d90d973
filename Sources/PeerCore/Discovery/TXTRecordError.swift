/// Why a TXT record that peerd was asked to publish is invalid.
package enum TXTRecordError: Error, Equatable, Sendable, CustomStringConvertible {
    /// `--info` was not of the form `key=value`.
    case missingEquals(String)
    /// The key is empty.
    case emptyKey(String)
    /// The key is longer than the 9 characters RFC 6763 recommends.
    case keyTooLong(key: String, length: Int)
    /// The key has a character outside printable ASCII, or an `=`.
    case keyInvalid(String)
    /// The key is one peerd publishes itself (`txtvers`, `id`).
    case keyReserved(String)
    /// The same key was given twice.
    case duplicateKey(String)
    /// `key=value` is longer than the 255 bytes one TXT string can hold.
    case pairTooLong(key: String, bytes: Int)
    /// The whole record is longer than 1300 bytes.
    case recordTooLong(bytes: Int)

    /// A message that names the offending input and the limit.
    package var description: String {
        switch self {
        case .missingEquals(let s): return "--info '\(s)': expected key=value"
        case .emptyKey(let s): return "--info '\(s)': the key is empty"
        case .keyTooLong(let k, let n): return "--info key '\(k)' is \(n) characters; at most \(TXTRecord.maxKeyLength) are allowed"
        case .keyInvalid(let k): return "--info key '\(k)' must be printable ASCII without '='"
        case .keyReserved(let k): return "--info key '\(k)' is reserved; peerd publishes it itself"
        case .duplicateKey(let k): return "--info key '\(k)' is given more than once"
        case .pairTooLong(let k, let n): return "--info '\(k)=…' is \(n) bytes; one pair may be at most \(TXTRecord.maxPairBytes) bytes"
        case .recordTooLong(let n): return "the TXT record would be \(n) bytes; at most \(TXTRecord.maxRecordBytes) are allowed (shorten the --info values)"
        }
    }
}
