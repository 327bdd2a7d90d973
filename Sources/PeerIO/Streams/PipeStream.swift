import FoundationEssentials
import PeerCore
import PeerProtocol

/// One named stream between a local `pipe` client and a peer (issue 12,
/// point 6): its ends (``StreamPort``), its credit each way, whether each
/// direction has ended, and the client's answer, given when it is over.
@MainActor
final class PipeStream {
    /// The flow id this side offered in its `streamOpen`.
    let ownFlow: FlowID
    /// The stream's flow once both opens met: the smaller of the two ids.
    var flow: FlowID?
    let peer: UUID
    /// Its app and name, which the peer's pipe met.
    let key: StreamKey
    var name: String { key.name }
    let port: StreamPort
    /// The client that asked; the stream is reset if it goes.
    let client: ControlConnection
    private let answer: @MainActor (ControlReply) -> Void
    var credit = SendCredit()
    var window = ReceiveWindow()
    /// This side sent `streamEnd` (its input ended).
    var sentEnd = false
    /// The peer sent `streamEnd`.
    var receivedEnd = false
    var bytesSent: Int64 = 0
    var bytesReceived: Int64 = 0
    private(set) var finished = false

    init(ownFlow: FlowID, peer: UUID, key: StreamKey, port: StreamPort, client: ControlConnection,
         answer: @escaping @MainActor (ControlReply) -> Void) {
        self.ownFlow = ownFlow
        self.peer = peer
        self.key = key
        self.port = port
        self.client = client
        self.answer = answer
    }

    /// Whether both directions ended cleanly.
    var isComplete: Bool { sentEnd && receivedEnd && port.outputFinished }

    /// Ends it: closes the ends and answers the client.
    func finish(reason: FlowEndReason?, detail: String?) {
        guard !finished else { return }
        finished = true
        port.close()
        let info = StreamInfo(id: (flow ?? ownFlow).description, name: name, peer: peer, state: reason == nil ? "closed" : "reset",
                              bytesSent: bytesSent, bytesReceived: bytesReceived, reason: reason, detail: detail,
                              app: key.app.isDefault ? nil : key.app.text)
        answer(.answer(.pipe, info))
    }
}
