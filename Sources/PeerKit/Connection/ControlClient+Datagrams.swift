import PeerProtocol
import PeerSystem

extension ControlClient {
    /// A `datagrams` request (docs/control-protocol.md, "Datagrams") for a
    /// program that blocks, as peerctl does: `body` gets this side of the
    /// socket once the daemon has the other, and the daemon's counts come
    /// back when `body` has ended the socket (``DatagramSocket/finish()``
    /// or ``DatagramSocket/finishSending()``).
    package func datagrams(params: ControlParams?, _ body: (DatagramSocket) -> Void) throws(ControlClientError) -> DatagramsResult {
        let pair: (mine: DatagramSocket, theirs: FileDescriptor)
        do { pair = try DatagramSocket.pair() } catch { throw .transport("\(error)") }
        defer { pair.mine.descriptor.close() }
        return try call(.datagrams, params: params, descriptors: [pair.theirs], sent: {
            pair.theirs.close()
            body(pair.mine)
        })
    }
}
