/// Why a DNS exchange failed: the step, and ldns's status or the server's
/// rcode, in words a log can carry.
package struct DNSError: Error, Equatable, Sendable, CustomStringConvertible {
    /// What went wrong, as a kind a caller can act on.
    package enum Kind: Sendable, Equatable {
        /// No answer (timeout, unreachable, a reply ldns could not read).
        case noAnswer
        /// The server answered with an error rcode.
        case rcode(UInt8)
        /// The reply's TSIG did not verify, or the server said the signature was bad.
        case badSignature
        /// A name or record that ldns would not build.
        case badInput
    }

    /// The kind.
    package var kind: Kind
    /// What was being done (`query SOA peers.example.`, `update peers.example.`).
    package var step: String
    /// ldns's or the server's words.
    package var detail: String

    /// An error.
    package init(_ kind: Kind, step: String, detail: String) {
        self.kind = kind
        self.step = step
        self.detail = detail
    }

    /// Whether the server refused (a key it does not accept, no right to the zone).
    package var isRefusal: Bool {
        switch kind {
        case .badSignature: true
        case .rcode(let code): code == 5 || code == 9
        default: false
        }
    }

    /// `step: detail`.
    package var description: String { "\(step): \(detail)" }

    /// RFC 1035 and 2136's names of the rcodes peerd may see.
    package static func rcodeName(_ code: UInt8) -> String {
        switch code {
        case 1: "FORMERR"
        case 2: "SERVFAIL"
        case 3: "NXDOMAIN"
        case 4: "NOTIMP"
        case 5: "REFUSED"
        case 6: "YXDOMAIN"
        case 7: "YXRRSET"
        case 8: "NXRRSET"
        case 9: "NOTAUTH (the server does not accept this key for the zone)"
        case 10: "NOTZONE"
        default: "rcode \(code)"
        }
    }
}
