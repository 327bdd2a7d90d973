/// The requests a client can make.
public enum ControlMethod: String, Codable, Sendable, CaseIterable {
    /// Daemon status: names, port, Avahi state, counts.
    case status = "status"
    /// Every peer row.
    case peers = "peers"
    /// One peer, by UUID, unique UUID prefix or unique name (`params.peer`).
    case peer = "peer"
    /// Stream events; `params.since` replays held events after that number.
    case subscribe = "subscribe"
    /// Invite a peer to a session (`peer`, optional `context`, `timeout`).
    case invite = "invite"
    /// The invitations waiting for a decision here.
    case invitations = "invitations"
    /// Accept an invitation (`invitation`).
    case accept = "accept"
    /// Decline an invitation (`invitation`).
    case decline = "decline"
    /// Close the session with a peer (`peer`).
    case disconnect = "disconnect"
    /// Send one message to a connected peer (`peer`, `data` in base64).
    case send = "send"
    /// Pair with a peer (`peer`): opens or reuses a session, then the code exchange.
    case pair = "pair"
    /// Confirm a pairing with the code shown on the other host (`pairing`, `code`).
    case pairAccept = "pairAccept"
    /// Reject a pairing (`pairing`).
    case pairReject = "pairReject"
    /// The pairings in progress.
    case pairings = "pairings"
    /// The trust store: every paired peer.
    case paired = "paired"
    /// Remove trust in a peer (`peer`) here, and tell it.
    case unpair = "unpair"
    /// The messages queued for offline paired peers.
    case queue = "queue"
    /// The messages waiting in the inbox, without data (`peer`, `max`).
    case inbox = "inbox"
    /// Take messages from the inbox: they are returned and leave it (`peer`, `max`).
    case take = "take"
    /// Offer files to a connected peer (`peer`, `files`, their descriptors
    /// with the line; `transfer` and `more` for a manifest in parts or a resume).
    case sendFile = "sendFile"
    /// Accept an offer here, whole or some files (`transfer`, `files`).
    case acceptTransfer = "acceptTransfer"
    /// Decline an offer here (`transfer`).
    case declineTransfer = "declineTransfer"
    /// Cancel a transfer, either direction (`transfer`).
    case cancelTransfer = "cancelTransfer"
    /// Transfers in progress and recent ones (`transfer` for one, with its files).
    case transfers = "transfers"
    /// Join two descriptors (input, output) to a named stream with a peer
    /// (`peer`, `name`); answered when the stream is over.
    case pipe = "pipe"
    /// Join a descriptor to a peer as a message channel: length-prefixed
    /// messages both ways, no JSON (`peer`); answered when it is over.
    case channel = "channel"
    /// Dial a peer at an address, with no mDNS (`address`, optional
    /// `port`, `context`, `timeout`): answered with its row once its key is
    /// proven; the session goes on as an invitation.
    case add = "add"
    /// Register an app for as long as this connection lasts (`app`,
    /// optional `info`): it is published as a DNS-SD subtype with its info.
    case register = "register"
    /// The apps registered on this host: name, holder, clients, info.
    case apps = "apps"
    /// Declare an app, kept across restarts and held by the caller's uid
    /// (`app`, optional `info`).
    case appAdd = "appAdd"
    /// Remove a declared app (`app`); it stays while a client holds it live.
    case appRemove = "appRemove"
    /// Send one datagram to a connected peer (`peer`, `data` in base64,
    /// optional `app`), now or never (since 0.3.0).
    case datagram = "datagram"
    /// Send and take datagrams through a `SOCK_SEQPACKET` descriptor
    /// passed with the line (optional `app`); answered when it closes
    /// (since 0.3.0).
    case datagrams = "datagrams"
    /// Set or clear a paired peer's Quick Save rule (`peer`, `into`: the
    /// caller's folder; no `into`: off) (since 0.4.0).
    case quickSave = "quickSave"
    /// A page of a folder in the caller's download directory (`folder`,
    /// `offset`, `max`) (since 0.4.0).
    case downloads = "downloads"
    /// Copy landed files into descriptors the client opened for writing,
    /// one per `paths` entry with the line, then remove them here unless
    /// `keep` (`folder`, `paths`, `keep`) (since 0.4.0).
    case fetch = "fetch"
}
