/// How a client asked for its channel (docs/control-protocol.md, "Message
/// channels"; both since 0.3.0, both absent from older clients' requests).
package struct ChannelOptions: Sendable, Equatable {
    /// False: the channel carries the client's messages alone, and the
    /// peer's go where they would without it (take subscribers, the
    /// inbox). `peerctl send` opens such a channel, so it never takes a
    /// message meant for `peerctl recv`.
    package var receive: Bool
    /// True: a `channelOpened` event goes on the request's connection once
    /// the channel is open, before its answer.
    package var announce: Bool

    /// Options; the defaults are a 0.2.0 channel's.
    package init(receive: Bool = true, announce: Bool = false) {
        self.receive = receive
        self.announce = announce
    }
}
