import PeerCore
import PeerProtocol

/// What the session layer tells the data plane (files and streams): the
/// ``SessionDirector`` forwards to it and decides nothing about them.
@MainActor
package protocol BulkRoom: AnyObject {
    /// A session with `session.peerUUID` is established.
    func sessionUp(_ session: PeerSession)
    /// The default app joined `session` (it was accepted for an app
    /// alone): the default app's waiting transfers are offered on it.
    func defaultJoined(_ session: PeerSession)
    /// A transfer or stream message arrived on `session`; an opening of
    /// `app`'s flow when `app` is not the default (`appFlow`).
    func session(_ session: PeerSession, bulk message: BulkMessage, app: AppName)
    /// File or stream bytes arrived on `session`, in place (valid only during the call).
    func session(_ session: PeerSession, data head: BulkDataHead, bytes: UnsafeRawBufferPointer)
    /// `session` has room for bulk frames again.
    func sessionCanSendBulk(_ session: PeerSession)
    /// `session` ended.
    func sessionDown(_ session: PeerSession)
}
