/// The words `add` answers when its dial ends before the peer has a row
/// (issue 21, point 5). A service that is not peerd answers the handshake
/// with its own bytes (an SSH banner read as a frame length of 21,331):
/// that is said as "not a peerd session port", and none of those bytes are
/// quoted, so `add` tells nothing about other services.
package import PeerProtocol
package enum AddAnswer {
    /// The answer's text for a dial to `address` that ended with `reason`
    /// and the session's `text`; `heard` when the other side sent bytes,
    /// `proven` once it finished the Noise handshake (then it is peerd, and
    /// its words are passed on). A port that sent nothing (refused, silent)
    /// keeps the session's words, which say so.
    package static func text(reason: CloseReason, text: String, address: String, heard: Bool, proven: Bool = false) -> String {
        let foreign: Set<CloseReason> = [.handshakeFailed, .tooLarge, .protocolError]
        guard foreign.contains(reason), heard, !proven else { return "\(address): \(text) (\(reason.rawValue))" }
        return "\(address): not a peerd session port"
    }
}
