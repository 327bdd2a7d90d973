/// An application's name (issue 23): what MultipeerConnectivity calls a
/// `serviceType`, and what DNS-SD publishes as the subtype
/// `_NAME._sub._peerd._tcp` (RFC 6763 §7.1). The empty name is the
/// default app, which every client that registers nothing belongs to.
///
/// The rule is MPC's, which is RFC 6335's for service names: 1 to 15
/// characters; lowercase ASCII letters, digits and hyphens; at least one
/// letter; no hyphen at either end and no two together. A name that breaks
/// it is refused with the rule it broke (``AppNameProblem``).
public struct AppName: Hashable, Comparable, Sendable, CustomStringConvertible {
    /// The most characters a name has (MPC's and RFC 6335's limit).
    public static let maxLength = 15
    /// The default app: clients that register no app, and all traffic of
    /// peers without apps.
    public static let none = AppName(unchecked: "")

    /// The name as written on the wire and in DNS-SD.
    public let text: String

    private init(unchecked text: String) { self.text = text }

    /// `text` as an app name, or the rule it breaks. The empty string is
    /// the default app only when `allowDefault` (a request that names no
    /// app); registering it is refused.
    public init(_ text: String, allowDefault: Bool = false) throws(AppNameProblem) {
        if text.isEmpty, allowDefault {
            self.text = ""
            return
        }
        if let problem = Self.problem(of: text) { throw problem }
        self.text = text
    }

    /// Whether this is the default app.
    public var isDefault: Bool { text.isEmpty }

    /// The DNS-SD subtype this app is published under, for `serviceType`
    /// (`_chat._sub._peerd._tcp`).
    public func subtype(of serviceType: String) -> String { "_\(text)._sub.\(serviceType)" }

    /// The name, or "the default app" for the empty one.
    public var description: String { isDefault ? "the default app" : "'\(text)'" }

    /// Names sort by their text.
    public static func < (lhs: AppName, rhs: AppName) -> Bool { lhs.text < rhs.text }

    /// The first rule `text` breaks, in the order the rules are listed.
    static func problem(of text: String) -> AppNameProblem? {
        let scalars = Array(text.unicodeScalars)
        if scalars.isEmpty { return .empty }
        if scalars.count > maxLength { return .tooLong(characters: scalars.count) }
        if let bad = scalars.first(where: { !(("a"..."z").contains($0) || ("0"..."9").contains($0) || $0 == "-") }) {
            return .character(String(bad))
        }
        if !scalars.contains(where: { ("a"..."z").contains($0) }) { return .noLetter }
        if scalars.first == "-" || scalars.last == "-" { return .hyphenAtEnd }
        if text.contains("--") { return .hyphensTogether }
        return nil
    }
}
