/// Why one file of an offer is refused; the offer says which file and why,
/// and the rest may still be accepted. ``reason`` is the word on the wire
/// and in control events.
package import PeerProtocol
package enum OfferRefusal: Sendable, Equatable, Error {
    /// Its name (``TransferPathRefusal``).
    case name(TransferPathRefusal)
    /// Another file of the offer has the same path.
    case duplicate
    /// Its path runs through another file of the offer (`a` and `a/b`).
    case underAFile
    /// A negative size, or one over ``OfferCheck/maxFileSize``.
    case badSize

    /// The reason as one word (a ``TransferPathRefusal`` raw value, or
    /// `duplicate`, `underAFile`, `badSize`).
    package var reason: String {
        switch self {
        case .name(let refusal): return refusal.rawValue
        case .duplicate: return "duplicate"
        case .underAFile: return "underAFile"
        case .badSize: return "badSize"
        }
    }
}
