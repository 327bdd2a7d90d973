/// Why a file name in a transfer offer is refused (docs/protocol.md). The
/// raw values go on the wire and into control events; they are pinned by
/// `WireValuesTests`.
package enum TransferPathRefusal: String, Error, Sendable, Equatable, Codable, CaseIterable {
    /// The path is empty.
    case empty = "empty"
    /// The path is not valid UTF-8.
    case notUTF8 = "notUTF8"
    /// The path is UTF-8, but not in Unicode normalization form C.
    case notNFC = "notNFC"
    /// The path starts with `/`.
    case absolute = "absolute"
    /// A component is empty (`a//b`, or a trailing `/`).
    case emptyComponent = "emptyComponent"
    /// A component is `.` or `..`.
    case dotComponent = "dotComponent"
    /// The path holds NUL or another control character (C0, DEL or C1).
    case controlCharacter = "controlCharacter"
    /// A component is longer than 255 bytes, or the path than 4,096.
    case tooLong = "tooLong"
    /// A component starts with `.peerd-`: the names peerd keeps for its
    /// own files (partial files and their block records) are never a
    /// peer's to write (issue 21, point 1).
    case reservedName = "reservedName"
    /// The name holds a character that shows nothing or turns the text
    /// around: Unicode's Bidi_Control and Default_Ignorable_Code_Point
    /// characters (U+202E, U+200B, U+FEFF, …) and the line and paragraph
    /// separators U+2028 and U+2029. They make `invoice\u{202E}fdp.exe`
    /// show as `invoiceexe.pdf`.
    case invisibleCharacter = "invisibleCharacter"
    /// The name holds a character drawn like `/` or `\` (U+2044, U+2215,
    /// U+FF0F, U+FF3C, …): `a／b` would pass for a folder it is not.
    case lookalikeSeparator = "lookalikeSeparator"

    /// The words for people.
    package var description: String {
        switch self {
        case .empty: return "the name is empty"
        case .notUTF8: return "the name is not valid UTF-8"
        case .notNFC: return "the name is not in Unicode normalization form C"
        case .absolute: return "the name is an absolute path"
        case .emptyComponent: return "the name has an empty component"
        case .dotComponent: return "the name has a '.' or '..' component"
        case .controlCharacter: return "the name holds a control character"
        case .tooLong: return "the name or one of its components is too long"
        case .reservedName: return "a component starts with '.peerd-', which peerd keeps for its own files"
        case .invisibleCharacter: return "the name holds an invisible or direction-changing character"
        case .lookalikeSeparator: return "the name holds a character drawn like '/' or '\\'"
        }
    }
}
