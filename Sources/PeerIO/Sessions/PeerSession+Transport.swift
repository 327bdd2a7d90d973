import PeerCore

/// What the session's connection reports to it (``SessionTransport``), and
/// what its sending half does (``FrameSender``): apart from the session's
/// own logic, so PeerSession.swift holds the handshake and the dispatch.
extension PeerSession: SessionTransportDelegate {
    /// Sends the first handshake message once the dial connects.
    package func transportConnected() {
        do { transport.send(frame: try noise.firstMessage()) } catch { perform(lifecycle.handshakeFailed("\(error)")) }
    }

    /// The dial did not connect.
    package func transportConnectFailed(_ reason: String) {
        perform(lifecycle.handshakeFailed("connect to \(remoteAddress): \(reason)"))
    }

    /// Any bytes keep the keepalive quiet.
    package func transportBytesArrived() { lifecycle.bytesArrived() }

    /// One frame: handshake or message.
    package func transportReceived(_ frame: UnsafeMutableRawBufferPointer) -> Bool {
        guard !finished else { return false }
        receivedFrame(frame)
        return !finished
    }

    /// The connection ended without a close frame.
    package func transportBroke(_ why: String) { perform(lifecycle.transportClosed(why)) }

    /// A bad frame length.
    package func transportCorrupt(_ why: String) { fail(why) }

    /// Room for bulk frames again.
    package func transportHasRoom() {
        if isConnected { delegate?.sessionCanSendBulk(self) }
    }
}

extension PeerSession: FrameSenderOwner {
    /// A seal failed (a nonce ran out): the session ends.
    func senderFailed(_ why: String) { finish(.protocolError, why) }

    /// Bulk work done on the session's sealer gave its room back.
    func senderHasRoom() { transportHasRoom() }
}
