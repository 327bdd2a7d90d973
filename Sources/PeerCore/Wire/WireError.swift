/// A session frame that breaks the wire protocol.
package enum WireError: Error, Equatable, Sendable, CustomStringConvertible {
    /// Fewer bytes than the type needs.
    case truncated(String)
    /// More bytes than the type allows.
    case trailingBytes(String)
    /// A version this build does not speak.
    case unsupportedVersion(UInt8)
    /// An unknown message type.
    case unknownType(UInt8)
    /// A field is over its limit.
    case fieldTooLong(String, Int)
    /// Text is not UTF-8.
    case invalidText(String)
    /// A frame length of zero (the 2-byte prefix) or over the Noise limit.
    case badFrameLength(Int)
    /// A flags byte with bits this version does not define.
    case unknownFlags(String, UInt8)

    /// A sentence for logs and close reasons.
    package var description: String {
        switch self {
        case .truncated(let what): return "truncated \(what)"
        case .trailingBytes(let what): return "trailing bytes after \(what)"
        case .unsupportedVersion(let v): return "wire version \(v) is not supported"
        case .unknownType(let t): return "unknown message type 0x\(String(t, radix: 16))"
        case .fieldTooLong(let what, let n): return "\(what) of \(n) bytes is over its limit"
        case .invalidText(let what): return "\(what) is not UTF-8"
        case .badFrameLength(let n): return "frame length \(n) is out of range"
        case .unknownFlags(let what, let flags): return "\(what) 0x\(String(flags, radix: 16)) has bits this version does not define"
        }
    }
}
