/// The version of peerd and peerctl, shown by `--version`, in `status`,
/// and in the start-up log line.
public enum PeerdVersion {
    /// The version string.
    public static let string = "0.1.0"
}
