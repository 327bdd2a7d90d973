
/// How many terminal columns text takes, and text cut to fit: enough of
/// Unicode's East Asian Width for names peers choose (CJK, Hangul,
/// full-width forms and emoji take two columns; combining marks ride on
/// their base). Control characters never reach here: text is escaped first
/// (``TerminalText/escape(_:)``).
package enum DisplayWidth {
    /// Columns `character` takes: 1 or 2.
    package static func of(_ character: Character) -> Int {
        guard let scalar = character.unicodeScalars.first else { return 1 }
        switch scalar.value {
        case 0x1100...0x115F, 0x2E80...0x303E, 0x3041...0x33FF, 0x3400...0x4DBF, 0x4E00...0x9FFF, 0xA000...0xA4CF,
             0xAC00...0xD7A3, 0xF900...0xFAFF, 0xFE30...0xFE4F, 0xFF00...0xFF60, 0xFFE0...0xFFE6,
             0x1F300...0x1F64F, 0x1F900...0x1FAFF, 0x20000...0x3FFFD:
            return 2
        default:
            return 1
        }
    }

    /// Columns `text` takes.
    package static func of(_ text: String) -> Int { text.reduce(0) { $0 + of($1) } }

    /// `text` in at most `width` columns: cut with "…" when longer.
    package static func truncate(_ text: String, to width: Int) -> String {
        guard width > 0 else { return "" }
        guard of(text) > width else { return text }
        var out = "", used = 0
        for character in text {
            let w = of(character)
            if used + w > width - 1 { break }
            out.append(character)
            used += w
        }
        return out + "…"
    }
}
