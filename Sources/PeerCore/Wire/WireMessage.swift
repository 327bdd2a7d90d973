/// A message inside an established session (the plaintext of one Noise
/// transport message). docs/protocol.md specifies every byte.
package import PeerProtocol
package enum WireMessage: Equatable, Sendable {
    /// Ask for a session: the inviter's display name, context, how long it
    /// waits, and whether the session is for pairing (the invitee's user then
    /// decides by the pairing code, not by the invitation).
    /// `app` (feature `apps`) asks for the session on behalf of that app
    /// alone: its rules decide, and the session carries no default-app
    /// traffic ("" for the default app's invitation, as before apps).
    case invite(name: String, context: [UInt8], timeoutMilliseconds: UInt32, pairing: Bool = false, app: String = "")
    /// The invitee accepts, with its own display name ("" when it sent
    /// none: the body may be empty).
    case accept(name: String = "")
    /// The invitee declines, with a reason and text.
    case decline(reason: CloseReason, text: String)
    /// Application data; `more` is set on every fragment but the last.
    case data(more: Bool, bytes: [UInt8])
    /// Keepalive probe.
    case ping(UInt64)
    /// Keepalive answer.
    case pong(UInt64)
    /// End of session, with a reason and text.
    case close(reason: CloseReason, text: String)
    /// Pairing: the initiator asks to pair.
    case pairRequest
    /// Pairing: the responder's commitment, SHA-256 of its nonce.
    case pairCommit([UInt8])
    /// Pairing: the initiator's nonce.
    case pairNonce([UInt8])
    /// Pairing: the responder reveals its nonce.
    case pairReveal([UInt8])
    /// Pairing: the responder's user typed the right code.
    case pairConfirm
    /// Pairing: it failed, with a reason and text.
    case pairReject(reason: PairingFailure, text: String)
    /// The sender removed its trust in the receiver.
    case unpair
    /// The number of whole application messages the sender has received on
    /// this session so far (cumulative); lets the other side forget what it
    /// kept for redelivery.
    case ack(UInt64)
    /// File transfers and streams (types 0x10 to 0x1B, ``BulkCodec``).
    case bulk(BulkMessage)
    /// Apps: their list, numbers, data and flow (types 0x20 to 0x2A,
    /// ``AppCodec``; feature `apps`).
    case app(AppMessage)
    /// A message of a feature that plugs into the session (docs/protocol.md
    /// §9, "Feature messages"): a type from 0x30 up that no core message
    /// has, and its body, which the feature that registered the type reads
    /// (the datagram path's 0x30 and 0x31: ``DatagramSessionMessage``).
    /// The codec carries it as it is; the session hands it to its owner.
    case feature(type: UInt8, body: [UInt8])
    /// The next application message to complete on this session is
    /// message `tag.seq` of the sender's durable queue `tag.epoch` (type
    /// 0x32, feature `once`, docs/protocol.md §5, "Exactly once"): the
    /// receiver keeps it once, however often it comes.
    case queued(QueueTag)
}
