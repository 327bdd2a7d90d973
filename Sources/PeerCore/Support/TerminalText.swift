/// Makes untrusted text safe to print on a terminal.
///
/// Peer names, TXT values, invitation contexts and error texts come from
/// the network. Printed raw, an escape sequence in them could clear the
/// screen, retitle the window, recolour the output or, through a newline,
/// forge lines. Human output passes every such field through ``escape(_:)``;
/// `--json` output needs none of this, since JSON escapes controls itself.
public enum TerminalText {
    /// Returns `text` with every C0 control, DEL, C1 control and bidi
    /// control written as a visible escape (`\n`, `\t`, `\x1b`, `\u{202e}`),
    /// and a backslash doubled so an escape cannot be forged by typing one.
    public static func escape(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: needsEscape) else { return text }
        var out = ""
        out.reserveCapacity(text.utf8.count + 8)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where scalar.value < 0x20 || scalar.value == 0x7F:
                out += "\\x" + hex(scalar.value, width: 2)
            case _ where isUnsafe(scalar):
                out += "\\u{" + hex(scalar.value, width: 1) + "}"
            default:
                out.unicodeScalars.append(scalar)
            }
        }
        return out
    }

    /// Whether a scalar would be rewritten by ``escape(_:)``.
    static func needsEscape(_ scalar: Unicode.Scalar) -> Bool {
        scalar == "\\" || scalar.value < 0x20 || scalar.value == 0x7F || isUnsafe(scalar)
    }

    /// C1 controls (U+0080–U+009F, which some terminals obey like ESC
    /// sequences) and the bidi controls that reorder what follows them.
    private static func isUnsafe(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x80...0x9F, 0x061C, 0x200E, 0x200F, 0x202A...0x202E, 0x2066...0x2069: return true
        default: return false
        }
    }

    private static func hex(_ value: UInt32, width: Int) -> String {
        let digits = String(value, radix: 16)
        return String(repeating: "0", count: max(0, width - digits.count)) + digits
    }
}
