
/// Small text helpers for the parsers of system files and tool output.
enum DoctorText {
    /// `text` without leading and trailing blanks.
    static func trim(_ text: some StringProtocol) -> String {
        var out = Substring(text)
        while let first = out.first, first.isWhitespace { out.removeFirst() }
        while let last = out.last, last.isWhitespace { out.removeLast() }
        return String(out)
    }

    /// Blank-separated words.
    static func words(_ text: some StringProtocol) -> [Substring] {
        Substring(text).split(whereSeparator: { $0 == " " || $0 == "\t" })
    }
}
