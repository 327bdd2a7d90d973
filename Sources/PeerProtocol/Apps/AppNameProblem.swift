/// The rule an app name breaks (``AppName``); the description names the
/// name's rule, for the `invalidParams` error a client sees.
public enum AppNameProblem: Error, Equatable, Sendable, CustomStringConvertible {
    /// The name is empty (the default app is registered by naming none).
    case empty
    /// More than 15 characters.
    case tooLong(characters: Int)
    /// A character other than a lowercase ASCII letter, digit or hyphen.
    case character(String)
    /// Digits and hyphens only.
    case noLetter
    /// A hyphen first or last.
    case hyphenAtEnd
    /// Two hyphens together.
    case hyphensTogether

    /// The rule, with what broke it.
    public var description: String {
        switch self {
        case .empty: "an app name has 1 to \(AppName.maxLength) characters (the default app is the one a client gets by naming none)"
        case .tooLong(let count): "an app name has at most \(AppName.maxLength) characters; this one has \(count)"
        case .character(let c): "an app name has only lowercase ASCII letters, digits and hyphens; \(Self.shown(c)) is none of them"
        case .noLetter: "an app name has at least one letter"
        case .hyphenAtEnd: "an app name does not begin or end with a hyphen"
        case .hyphensTogether: "an app name has no two hyphens together"
        }
    }

    /// A printable ASCII character in quotes; anything else as U+XXXX, so
    /// an invisible one is seen.
    private static func shown(_ character: String) -> String {
        guard let scalar = character.unicodeScalars.first else { return "''" }
        if (0x21...0x7E).contains(scalar.value) { return "'\(character)'" }
        let hex = String(scalar.value, radix: 16, uppercase: true)
        return "U+" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex
    }
}
