import Glibc
import PeerCore
import PeerSystem
import PeerProtocol

/// Why a transfer must end, with the words for the other side and the
/// clients: the reason the `cancel` carries, and what happened.
struct TransferFault: Error, Equatable {
    /// The reason on the wire.
    let reason: FlowEndReason
    /// What happened.
    let text: String

    init(_ reason: FlowEndReason, _ text: String) {
        self.reason = reason
        self.text = text
    }

    /// A failed write of `name`: `noSpace` for a full disk (or quota), else `ioError`.
    init(writing error: any Error, name: String) {
        let system = error as? SystemError
        let full = system?.errno == ENOSPC || system?.errno == EDQUOT
        self.init(full ? .noSpace : .ioError, "\(name): \(error)")
    }
}
