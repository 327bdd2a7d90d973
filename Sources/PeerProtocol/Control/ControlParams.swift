/// Request parameters. Each method reads the fields it needs; the others must
/// be absent or are ignored.
public struct ControlParams: Codable, Sendable, Equatable {
    /// `peer`: the selector (UUID, unique UUID prefix, or unique name).
    public var peer: String?
    /// `subscribe`: replay held events with a sequence number above this.
    public var since: UInt64?
    /// `invite`: text shown to the invitee (at most 4096 bytes of UTF-8).
    public var context: String?
    /// `invite` for an app: the context as bytes, base64 (at most 4096
    /// bytes; instead of `context`).
    public var contextData: String?
    /// `invite`: seconds to wait for an answer (default 30).
    public var timeout: Double?
    /// `accept`/`decline`: the invitation id.
    public var invitation: String?
    /// `send`: the message, base64.
    public var data: String?
    /// `pairAccept`/`pairReject`: the pairing id.
    public var pairing: String?
    /// `pairAccept`: the 6-digit code shown on the other host.
    public var code: String?
    /// `send`: queue durably when a paired peer is offline.
    public var queue: Bool?

    /// `subscribe`: this client takes messages (inbox first, then live).
    public var take: Bool?
    /// `subscribe` with `take`: take at most this many messages.
    public var count: Int?
    /// `inbox`/`take`: at most this many messages; `transfers` with a
    /// transfer id: at most this many files (default and cap 1,000).
    public var max: Int?
    /// `transfers` with a transfer id: the number of the first file listed.
    public var offset: Int?
    /// `sendFile`, `acceptTransfer`, `declineTransfer`, `cancelTransfer`,
    /// `transfers`: the transfer id.
    public var transfer: String?
    /// `sendFile`: this part of the manifest; `acceptTransfer`: nothing
    /// (use `accept`).
    public var files: [SendFileEntry]?
    /// `sendFile`: more parts of the manifest follow.
    public var more: Bool?
    /// `acceptTransfer`: the numbers of the files to accept (all when absent).
    public var accept: [Int]?
    /// `pipe`: the stream's name (both sides use the same).
    public var name: String?
    /// `add`: the peer's numeric address (an IPv6 one may carry `%IFACE`).
    public var address: String?
    /// `add`: the peer's session port (default 7717).
    public var port: Int?
    /// `send` to several peers: their selectors, in place of `peer`.
    public var peers: [String]?
    /// `send` to every connected peer, in place of `peer`.
    public var all: Bool?
    /// `register`, `appAdd`, `appRemove`: the app's name (issue 23).
    public var app: String?
    /// `register`, `appAdd`: the app's discovery info, `key=value` each.
    public var info: [String]?
    /// `channel` (since 0.3.0): false opens it for sending alone; the
    /// peer's messages then go where they would without it.
    public var receive: Bool?
    /// `channel` (since 0.3.0): true asks for a `channelOpened` event on
    /// the connection once the channel is open.
    public var opened: Bool?
    /// `datagram` (since 0.3.0): true carries the datagram in the session
    /// when it cannot cross over UDP (the path not up), dropped rather than
    /// queued behind much.
    public var fallback: Bool?
    /// `quickSave` (since 0.4.0): the caller's folder for the peer's
    /// files, an absolute path; absent turns the rule off.
    public var into: String?
    /// `downloads`, `fetch` (since 0.4.0): a folder in the caller's
    /// download directory, relative (`""` or absent: the directory).
    public var folder: String?
    /// `fetch` (since 0.4.0): the files to copy, relative to `folder`.
    public var paths: [String]?
    /// `fetch` (since 0.4.0): true leaves peerd's copies in place.
    public var keep: Bool?
    /// Creates parameters.
    public init(peer: String? = nil, since: UInt64? = nil, context: String? = nil, timeout: Double? = nil,
                invitation: String? = nil, data: String? = nil, pairing: String? = nil, code: String? = nil, queue: Bool? = nil,
                take: Bool? = nil, count: Int? = nil, max: Int? = nil, transfer: String? = nil) {
        self.transfer = transfer
        self.take = take
        self.count = count
        self.max = max
        self.queue = queue
        self.pairing = pairing
        self.code = code
        self.peer = peer
        self.since = since
        self.context = context
        self.timeout = timeout
        self.invitation = invitation
        self.data = data
    }
}
