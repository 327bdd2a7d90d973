/// Makes untrusted text safe to print on a terminal.
///
/// Peer names, TXT values, invitation contexts and error texts come from
/// the network. Printed raw, an escape sequence in them could clear the
/// screen, retitle the window, recolour the output or, through a newline,
/// forge lines. Human output passes every such field through ``escape(_:)``;
/// `--json` output needs none of this, since JSON escapes controls itself.
package enum TerminalText {
    /// Returns `text` with every C0 control, DEL, C1 control and invisible
    /// character written as a visible escape (`\n`, `\t`, `\x1b`, `\u{202e}`),
    /// and a backslash doubled so an escape cannot be forged by typing one.
    package static func escape(_ text: String) -> String {
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
    /// sequences), and what a file name may not hold because it cannot be
    /// seen (``TransferPath/isInvisible(_:)``): Bidi_Control, which
    /// reorders what follows it; Default_Ignorable_Code_Point (zero-width
    /// spaces and joiners, U+FEFF, variation selectors, Hangul fillers);
    /// and the line and paragraph separators U+2028 and U+2029. Shown raw,
    /// they let a stranger's name pass for a paired peer's (issue 42,
    /// point 4).
    private static func isUnsafe(_ scalar: Unicode.Scalar) -> Bool {
        (0x80...0x9F).contains(scalar.value) || TransferPath.isInvisible(scalar)
    }

    private static func hex(_ value: UInt32, width: Int) -> String {
        let digits = String(value, radix: 16)
        return String(repeating: "0", count: max(0, width - digits.count)) + digits
    }
}
