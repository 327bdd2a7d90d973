import FoundationEssentials
import Glibc
import PeerCore

/// The trust store's file, `<state-dir>/trust.json` (mode 0600, versioned
/// JSON ``TrustDocument``), rewritten crash-safely on every change. What
/// the daemon believes is ``TrustKeeper``'s; this is the file alone.
package struct TrustStore: Sendable {
    /// The file name inside the state directory.
    package static let fileName = "trust.json"

    /// The file's path.
    package let path: String
    /// What the file held when opened.
    package let document: TrustDocument

    /// Opens the store in `directory`. A missing file is an empty store. A
    /// corrupt one is an error unless `reset`, which moves it aside first;
    /// the second value is then where it went.
    package static func open(in directory: String, reset: Bool, now: Date = DaemonClock.system.now()) throws(TrustStoreError) -> (store: TrustStore, movedAside: String?) {
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

    /// Writes `document` crash-safely (a new file, `fsync`ed, renamed over
    /// the old one). Runs on the trust worker, never on the main actor.
    package func write(_ document: TrustDocument) throws(SystemError) {
        let bytes: [UInt8]
        do { bytes = try JSONLines.encode(document) } catch { throw SystemError("encode", errno: EINVAL, context: "\(error)") }
        try AtomicFile.write(path, contents: bytes, mode: 0o600)
    }
}
