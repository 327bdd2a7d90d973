/// The typed table of calls as data: each ``ControlCall``, once, with
/// its method and result type (tests check it covers every method).
public enum ControlCalls {
    /// Every call, once.
    public static var all: [ControlCallEntry] {
        [ControlCall<DaemonStatus>.status.entry, ControlCall<PeersResult>.peers.entry,
         ControlCall<PeerResult>.peer.entry, ControlCall<PeerResult>.disconnect.entry, ControlCall<PeerResult>.pair.entry,
         ControlCall<PeerResult>.pairAccept.entry, ControlCall<PeerResult>.unpair.entry,
         ControlCall<SubscribeResult>.subscribe.entry, ControlCall<InviteResult>.invite.entry, ControlCall<InviteResult>.disconnectApp.entry, ControlCall<InviteResult>.add.entry,
         ControlCall<InvitationsResult>.invitations.entry, ControlCall<InvitationInfo>.accept.entry, ControlCall<InvitationInfo>.decline.entry,
         ControlCall<SendResult>.send.entry, ControlCall<GroupSendResult>.sendToMany.entry, ControlCall<PairingInfo>.pairReject.entry,
         ControlCall<PairingsResult>.pairings.entry, ControlCall<TrustListResult>.paired.entry, ControlCall<QueueResult>.queue.entry,
         ControlCall<InboxResult>.inbox.entry, ControlCall<TakeResult>.take.entry,
         ControlCall<TransferResult>.sendFile.entry, ControlCall<TransferResult>.acceptTransfer.entry,
         ControlCall<TransferResult>.declineTransfer.entry, ControlCall<TransferResult>.cancelTransfer.entry,
         ControlCall<TransfersResult>.transfers.entry, ControlCall<StreamInfo>.pipe.entry, ControlCall<ChannelInfo>.channel.entry,
         ControlCall<AppRow>.register.entry, ControlCall<AppRow>.appAdd.entry, ControlCall<AppsResult>.apps.entry,
         ControlCall<EmptyResult>.appRemove.entry, ControlCall<DatagramSendResult>.datagram.entry,
         ControlCall<DatagramsResult>.datagrams.entry, ControlCall<TrustRecord>.quickSave.entry,
         ControlCall<DownloadsResult>.downloads.entry, ControlCall<FetchResult>.fetch.entry]
    }
}
