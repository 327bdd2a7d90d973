/// A `peerctl` subcommand.
public enum PeerctlCommand: Equatable, Sendable {
    /// Daemon status.
    case status
    /// The peer table.
    case peers
    /// One peer by UUID, unique UUID prefix or unique name.
    case peer(String)
    /// Stream events, optionally replaying those after a sequence number.
    case watch(since: UInt64?)
    /// Help, general or for one command.
    case help(String?)
    /// The version.
    case version

    /// Every command name, for help and errors.
    public static let names = ["status", "peers", "peer", "watch"]
}
