/// One control method together with the type of its result: the typed
/// table of calls (docs/control-protocol.md, one section per method), so a
/// client never picks a result type by hand, and one place says which
/// result each method gives.
///
///     let status = try client.call(.status)          // a DaemonStatus
///     let sent = try client.call(.send, params: p)   // a SendResult
///
/// Every method has one entry; `send` has two, for one peer
/// (``SendResult``) and for several (``GroupSendResult``), and so has
/// `disconnect`, without and with `app`, since the answer's shape follows
/// the request. ``ControlCalls/all`` lists them all.
public struct ControlCall<Result: Codable & Sendable>: Sendable, Equatable {
    /// The method on the wire.
    public let method: ControlMethod

    /// Only the table below makes calls: a method's result type is fixed here.
    init(_ method: ControlMethod) { self.method = method }

    /// The method and its result type's name, for ``ControlCalls/all``.
    var entry: ControlCallEntry { ControlCallEntry(method: method, result: "\(Result.self)") }
}

extension ControlCall where Result == DaemonStatus {
    /// `status`.
    public static var status: Self { .init(.status) }
}

extension ControlCall where Result == PeersResult {
    /// `peers` (with `app`: the peers that advertise it).
    public static var peers: Self { .init(.peers) }
}

extension ControlCall where Result == PeerResult {
    /// `peer`: one row.
    public static var peer: Self { .init(.peer) }
    /// `disconnect` (with `app`, the result has the app's state as well).
    public static var disconnect: Self { .init(.disconnect) }
    /// `pair`.
    public static var pair: Self { .init(.pair) }
    /// `pairAccept`.
    public static var pairAccept: Self { .init(.pairAccept) }
    /// `unpair`.
    public static var unpair: Self { .init(.unpair) }
}

extension ControlCall where Result == SubscribeResult {
    /// `subscribe`.
    public static var subscribe: Self { .init(.subscribe) }
}

extension ControlCall where Result == InviteResult {
    /// `invite`.
    public static var invite: Self { .init(.invite) }
    /// `disconnect` with `app`: the app's state with the peer comes too.
    public static var disconnectApp: Self { .init(.disconnect) }
    /// `add`: dial an address.
    public static var add: Self { .init(.add) }
}

extension ControlCall where Result == InvitationsResult {
    /// `invitations`.
    public static var invitations: Self { .init(.invitations) }
}

extension ControlCall where Result == InvitationInfo {
    /// `accept` an invitation.
    public static var accept: Self { .init(.accept) }
    /// `decline` an invitation.
    public static var decline: Self { .init(.decline) }
}

extension ControlCall where Result == SendResult {
    /// `send` to one peer.
    public static var send: Self { .init(.send) }
}

extension ControlCall where Result == GroupSendResult {
    /// `send` to several peers (`peers`): one result each.
    public static var sendToMany: Self { .init(.send) }
}

extension ControlCall where Result == PairingInfo {
    /// `pairReject`.
    public static var pairReject: Self { .init(.pairReject) }
}

extension ControlCall where Result == PairingsResult {
    /// `pairings`: pairings under way.
    public static var pairings: Self { .init(.pairings) }
}

extension ControlCall where Result == TrustListResult {
    /// `paired`: the trust store.
    public static var paired: Self { .init(.paired) }
}

extension ControlCall where Result == QueueResult {
    /// `queue`: messages queued for offline peers.
    public static var queue: Self { .init(.queue) }
}

extension ControlCall where Result == InboxResult {
    /// `inbox`: messages waiting for a client.
    public static var inbox: Self { .init(.inbox) }
}

extension ControlCall where Result == TakeResult {
    /// `take`: messages from the inbox.
    public static var take: Self { .init(.take) }
}

extension ControlCall where Result == TransferResult {
    /// `sendFile`.
    public static var sendFile: Self { .init(.sendFile) }
    /// `acceptTransfer`.
    public static var acceptTransfer: Self { .init(.acceptTransfer) }
    /// `declineTransfer`.
    public static var declineTransfer: Self { .init(.declineTransfer) }
    /// `cancelTransfer`.
    public static var cancelTransfer: Self { .init(.cancelTransfer) }
}

extension ControlCall where Result == DownloadsResult {
    /// `downloads` (since 0.4.0).
    public static var downloads: Self { .init(.downloads) }
}

extension ControlCall where Result == FetchResult {
    /// `fetch` (since 0.4.0): the descriptors go with the line.
    public static var fetch: Self { .init(.fetch) }
}

extension ControlCall where Result == TrustRecord {
    /// `quickSave` (since 0.4.0): the peer's trust record with its rule.
    public static var quickSave: Self { .init(.quickSave) }
}

extension ControlCall where Result == TransfersResult {
    /// `transfers`.
    public static var transfers: Self { .init(.transfers) }
}

extension ControlCall where Result == StreamInfo {
    /// `pipe`: a stream through a descriptor; answered when it ends.
    public static var pipe: Self { .init(.pipe) }
}

extension ControlCall where Result == ChannelInfo {
    /// `channel`: a message channel through a descriptor; answered when it ends.
    public static var channel: Self { .init(.channel) }
}

extension ControlCall where Result == AppRow {
    /// `register` an app on this connection.
    public static var register: Self { .init(.register) }
    /// `appAdd`: declare an app.
    public static var appAdd: Self { .init(.appAdd) }
}

extension ControlCall where Result == AppsResult {
    /// `apps`.
    public static var apps: Self { .init(.apps) }
}

extension ControlCall where Result == EmptyResult {
    /// `appRemove`.
    public static var appRemove: Self { .init(.appRemove) }
}

extension ControlCall where Result == DatagramSendResult {
    /// `datagram`: one datagram, sent now or dropped now.
    public static var datagram: Self { .init(.datagram) }
}

extension ControlCall where Result == DatagramsResult {
    /// `datagrams`: datagrams both ways through a descriptor; answered when it closes.
    public static var datagrams: Self { .init(.datagrams) }
}
