import PeerProtocol

/// A `peerctl` subcommand.
package enum PeerctlCommand: Equatable, Sendable {
    /// Daemon status.
    case status
    /// The peer table.
    case peers
    /// One peer by UUID, unique UUID prefix or unique name.
    case peer(String)
    /// Stream events, optionally replaying those after a sequence number.
    case watch(since: UInt64?)
    /// Invite a peer; with `wait`, block until connected or refused.
    case invite(peer: String, context: String?, timeout: Double?, wait: Bool)
    /// The pending invitations.
    case invitations
    /// Accept an invitation.
    case accept(String)
    /// Decline an invitation.
    case decline(String)
    /// Close the session with a peer.
    case disconnect(String)
    /// Send text (or stdin with `-`); with `lines`, each stdin line is one message.
    case send(peer: String, text: String, lines: Bool, queue: Bool = false)
    /// Messages queued for offline paired peers.
    case queue
    /// Print messages: those waiting in the inbox first, then as they arrive.
    case recv(from: String?, count: Int?)
    /// List the inbox (no data).
    case inbox(from: String?, max: Int?)
    /// Print messages waiting in the inbox, taking them; never waits.
    case take(from: String?, count: Int?)
    /// Wait until a peer reaches a state.
    case wait(peer: String, state: ConnectionState, timeout: Double?)
    /// Pair with a peer: show the code, wait for the other side to confirm.
    case pair(String)
    /// Confirm a pairing with the code shown on the other host (nil: ask interactively).
    case pairAccept(id: String, code: String?)
    /// Reject a pairing.
    case pairReject(String)
    /// Pairings in progress.
    case pairings
    /// The trust list.
    case paired
    /// Remove trust in a peer.
    case unpair(String)
    /// Offer files and directories to a peer; with `wait`, follow it to the end.
    case sendFile(peer: String, paths: [String], resume: String?, wait: Bool)
    /// Transfers in progress and recent ones (one, with its files).
    case transfers(String?)
    /// Accept an offer, whole or some files.
    case acceptTransfer(id: String, files: [Int]?)
    /// Decline an offer.
    case declineTransfer(String)
    /// Cancel a transfer, either direction.
    case cancelTransfer(String)
    /// List a folder of the download directory (`""`: its top).
    case downloads(folder: String)
    /// Move landed files below `folder` into the local folder `into` (nil:
    /// the user's download folder); with `keep`, peerd keeps its copies.
    case fetch(folder: String, into: String?, keep: Bool)
    /// Set a paired peer's Quick Save rule to `folder`, or clear it (nil).
    case quickSave(peer: String, folder: String?)
    /// Join stdin and stdout to a named stream with a peer.
    case pipe(peer: String, name: String)
    /// Send a datagram (TEXT, stdin with `-`, each stdin line with `lines`).
    case dgramSend(peer: String, text: String, lines: Bool, fallback: Bool = false)
    /// Print datagrams as they arrive (`count` of them, or until interrupted).
    case dgramRecv(count: Int?)
    /// Dial a peer at an address, with no mDNS; with `wait`, block until connected or refused.
    case add(address: PeerAddress, context: String?, timeout: Double?, wait: Bool)
    /// The live master–detail view of peers.
    case top
    /// Check why peers cannot be seen, or why `peer` cannot.
    case doctor(peer: String?)
    /// Send one message to several peers (`send A B TEXT`), or to every
    /// connected peer (`send --all TEXT`, `peers` nil); one line per peer.
    case groupSend(peers: [String]?, text: String, queue: Bool)
    /// The apps registered on this host.
    case apps
    /// Declare an app (kept across restarts), with its info pairs.
    case appsAdd(name: String, info: [String])
    /// Remove a declared app.
    case appsRemove(String)
    /// Help, general or for one command.
    case help(String?)
    /// The version.
    case version

    /// Every command name, for help and errors.
    package static let names = ["status", "peers", "peer", "watch", "invite", "invitations", "accept", "decline", "disconnect", "send", "recv", "wait",
                                      "pair", "pair-accept", "pair-reject", "pairings", "paired", "unpair", "queue", "inbox", "take",
                                      "send-file", "transfers", "accept-transfer", "decline-transfer", "cancel-transfer", "downloads", "fetch",
                                      "quick-save", "pipe", "dgram",
                                      "add", "apps", "top", "doctor"]
}
