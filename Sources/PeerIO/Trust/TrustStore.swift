import FoundationEssentials
import Glibc
import PeerCore

/// The paired peers, in `<state-dir>/trust.json` (mode 0600, versioned JSON
/// ``TrustDocument``), rewritten crash-safely on every change.
public struct TrustStore: Sendable {
    /// The file name inside the state directory.
    public static let fileName = "trust.json"

    /// The file's path.
    public let path: String
    /// What is trusted.
    public private(set) var document: TrustDocument

    /// Opens the store in `directory`. A missing file is an empty store. A
    /// corrupt one is an error unless `reset`, which moves it aside first;
    /// the second value is then where it went.
    public static func open(in directory: String, reset: Bool, now: Date = DaemonClock.system.now()) throws(TrustStoreError) -> (store: TrustStore, movedAside: String?) {
        let path = directory + "/" + fileName
        do {
            try AtomicFile.makeDirectories(directory)
            guard let bytes = try AtomicFile.read(path) else { return (TrustStore(path: path, document: TrustDocument(peers: [])), nil) }
            do {
                let document = try JSONLines.decode(TrustDocument.self, from: bytes)
                guard document.version == TrustDocument.currentVersion else {
                    throw TrustStoreError.corrupt(path: path, reason: "format version \(document.version); this build reads \(TrustDocument.currentVersion)")
                }
                return (TrustStore(path: path, document: document), nil)
            } catch {
                guard reset else {
                    if let error = error as? TrustStoreError { throw error }
                    throw TrustStoreError.corrupt(path: path, reason: "\(error)")
                }
                let aside = try AtomicFile.moveAside(path, suffix: "corrupt-\(Int(now.timeIntervalSince1970))")
                return (TrustStore(path: path, document: TrustDocument(peers: [])), aside)
            }
        } catch let error as TrustStoreError {
            throw error
        } catch let error as SystemError {
            throw .system(error)
        } catch {
            throw .corrupt(path: path, reason: "\(error)")
        }
    }

    /// The record for a peer id.
    public func record(peerID: String) -> TrustRecord? { document.peers.first { $0.peerId == peerID } }

    /// The record for a display name.
    public func record(named name: String) -> TrustRecord? { document.peers.first { $0.name == name } }

    /// Adds or replaces the record for `record.peerId`, then saves.
    public mutating func upsert(_ record: TrustRecord) throws(SystemError) {
        var next = document
        next.peers.removeAll { $0.peerId == record.peerId }
        next.peers.append(record)
        try save(next)
    }

    /// Removes a peer; returns whether it was there.
    @discardableResult
    public mutating func remove(peerID: String) throws(SystemError) -> Bool {
        guard record(peerID: peerID) != nil else { return false }
        var next = document
        next.peers.removeAll { $0.peerId == peerID }
        try save(next)
        return true
    }

    private mutating func save(_ next: TrustDocument) throws(SystemError) {
        let bytes: [UInt8]
        do { bytes = try JSONLines.encode(next) } catch { throw SystemError("encode", errno: EINVAL, context: "\(error)") }
        try AtomicFile.write(path, contents: bytes, mode: 0o600)
        // Only a durable write changes what the daemon believes.
        document = next
    }
}

