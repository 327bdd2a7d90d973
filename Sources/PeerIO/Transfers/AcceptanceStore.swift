import Glibc
import PeerCore
import PeerSystem
import PeerProtocol

/// Where accepted offers are remembered (issue 21, point 1.1):
/// `STATE_DIR/transfers/FLOW.accepted`, one ``AcceptanceRecord`` each,
/// mode 0600 in a folder of mode 0700. The state directory is peerd's
/// own; no peer's bytes land there (they land in the download directory,
/// under a folder per peer), so no peer can name, write or forge a record.
/// A record goes when its transfer ends, and the sweep removes those left
/// longer than partial files are kept.
struct AcceptanceStore {
    /// The folder's name in the state directory.
    static let folderName = "transfers"
    /// `STATE_DIR/transfers`.
    let path: String

    /// The store in `stateDirectory`.
    init(stateDirectory: String) {
        path = stateDirectory + "/" + Self.folderName
    }

    /// A record's file name.
    static func name(_ flow: FlowID) -> String { "\(flow).accepted" }

    /// Writes the record for `flow`, whole or not at all.
    func write(_ record: AcceptanceRecord, flow: FlowID) throws(SystemError) {
        if mkdir(path, 0o700) != 0 && errno != EEXIST { throw SystemError("mkdir", errno: errno, context: path) }
        try AtomicFile.write(path + "/" + Self.name(flow), contents: record.encoded)
    }

    /// The record for `flow`; nil without one, or for one that is not whole.
    func read(_ flow: FlowID) -> AcceptanceRecord? {
        guard let bytes = try? AtomicFile.read(path + "/" + Self.name(flow), limit: AcceptanceRecord.maxBytes) else { return nil }
        return AcceptanceRecord.decode(bytes)
    }

    /// Removes the record for `flow`.
    func remove(_ flow: FlowID) {
        unlink(path + "/" + Self.name(flow))
    }
}
