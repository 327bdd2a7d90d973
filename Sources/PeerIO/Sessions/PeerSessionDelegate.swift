import PeerCore
import PeerProtocol

/// What a ``PeerSession`` reports to its owner (the session manager).
@MainActor
package protocol PeerSessionDelegate: AnyObject {
    /// The handshake proved the remote's static key; `peerID` is its fingerprint.
    func sessionAuthenticated(_ session: PeerSession, peerID: String)
    /// The invitee side got an invitation; a client must decide.
    func sessionNeedsDecision(_ session: PeerSession, name: String, context: [UInt8], timeoutSeconds: Int, pairing: Bool)
    /// The peer asks to pair; answer with ``PeerSession/answerPairingRequest(accept:nonce:timeout:)``.
    func sessionPairingRequested(_ session: PeerSession)
    /// A pairing step the owner must act on (show or ask for the code, store trust, report failure).
    func session(_ session: PeerSession, pairing action: PairingAction)
    /// The peer has received the first `count` messages sent on this session.
    func session(_ session: PeerSession, acknowledged count: UInt64)
    /// The peer removed its trust in us.
    func sessionUnpaired(_ session: PeerSession)
    /// The session is connected.
    func sessionEstablished(_ session: PeerSession)
    /// A whole application message of `app` arrived (the default app for
    /// plain `data`): whether a client has it (it may be acknowledged), the
    /// inbox is storing it, or neither can take it (the session then closes
    /// as `busy`, and the message is not acknowledged; or, for an app, that
    /// app alone is held back).
    /// `tag` is the message's place in the peer's durable queue, when the
    /// peer sent one (feature `once`): a message the receiver already
    /// stored under it is dropped and counted as safe.
    func session(_ session: PeerSession, delivered message: [UInt8], app: AppName, tag: QueueTag?) -> DeliveryVerdict
    /// The peer's daemon confirmed the apps registered there (`appList`).
    func session(_ session: PeerSession, confirmedApps names: [String])
    /// The peer refused this side's messages of `app` from session message
    /// `first` on (`appBusy`), with its words: they were not delivered, and
    /// nothing more of `app` goes until it has room.
    func session(_ session: PeerSession, appBusy app: AppName, from first: UInt64, text: String)
    /// An app's invitation, or its answer or end (`appInvite`, `appAccept`,
    /// `appDecline`, `appLeave`).
    func session(_ session: PeerSession, app message: AppMessage)
    /// The default app's joining of a session accepted for an app alone:
    /// decide the peer's invitation (answer with
    /// ``PeerSession/decideJoin(accept:words:)``), it joined, our invitation
    /// failed, or the peer's was withdrawn before a decision.
    func session(_ session: PeerSession, join action: DefaultAppJoin.Action)
    /// The peer has room for `app` again (`appReady`; the session has sent
    /// its `appRetry`): what waits for it may go.
    func session(_ session: PeerSession, appReady app: AppName)
    /// A transfer or stream message arrived (docs/protocol.md §8); one that
    /// came in `appFlow` opens a flow of `app` (§10), any other is `.none`.
    func session(_ session: PeerSession, bulk message: BulkMessage, app: AppName)
    /// A `chunk` or `streamData` arrived: its head, and its bytes where
    /// they were decrypted (valid only during the call).
    func session(_ session: PeerSession, data head: BulkDataHead, bytes: UnsafeRawBufferPointer)
    /// The session's queue drained below ``PeerSession/bulkHighWater``:
    /// bulk frames may go out again.
    func sessionCanSendBulk(_ session: PeerSession)
    /// The session ended (the socket is closed).
    func sessionFinished(_ session: PeerSession, reason: CloseReason, text: String)
}
