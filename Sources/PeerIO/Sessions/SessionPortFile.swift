import Glibc
import PeerCore
import PeerProtocol

/// The session port of the last run, kept in the state directory. With
/// `port = 0` a daemon prefers 7717 (``PeerAddress/defaultPort``), and a
/// restarted daemon listens where its paired peers last saw
/// it, so the addresses they remembered (and the records Avahi cached
/// before a partition) still reach it; a port taken meanwhile falls back
/// to any free one.
package enum SessionPortFile {
    /// The file's name in the state directory: the port in decimal.
    package static let fileName = "session-port"

    /// The remembered port; nil when there is none or it does not parse
    /// (the file is only a hint, so a bad one is ignored, then replaced).
    package static func load(stateDirectory: String) -> UInt16? {
        guard let bytes = try? AtomicFile.read("\(stateDirectory)/\(fileName)", limit: 64),
              let text = String(validating: bytes, as: UTF8.self),
              let port = UInt16(String(text.filter { !$0.isWhitespace })), port != 0 else { return nil }
        return port
    }

    /// Remembers `port`, crash-safely.
    package static func save(_ port: UInt16, stateDirectory: String) throws(SystemError) {
        try AtomicFile.write("\(stateDirectory)/\(fileName)", contents: Array("\(port)\n".utf8), mode: 0o644)
    }

    /// Binds the session port: `configured` when it is not 0; otherwise the
    /// remembered port when it is free, else ``PeerAddress/defaultPort``
    /// (so `peerctl add HOST` finds it with no port), else any free port;
    /// the port bound is remembered for next time. Returns the listener and
    /// a note for the log, if any.
    package static func openListener(configured: UInt16, stateDirectory: String) throws(SystemError) -> (listener: TCPListener, note: String?) {
        guard configured == 0 else { return (try TCPListener(port: configured), nil) }
        let last = load(stateDirectory: stateDirectory)
        var note: String?
        var listener: TCPListener?
        if let last {
            do { listener = try TCPListener(port: last) } catch {
                note = "the last run's session port \(last) is not available (\(error)); using another"
            }
        }
        if listener == nil, last != PeerAddress.defaultPort {
            do { listener = try TCPListener(port: PeerAddress.defaultPort) } catch {
                // Taken (a second daemon on this host, say): any port serves.
            }
        }
        let bound: TCPListener
        if let listener { bound = listener } else { bound = try TCPListener(port: 0) }
        if bound.port != last {
            do { try save(bound.port, stateDirectory: stateDirectory) } catch {
                note = (note.map { $0 + "; " } ?? "") + "cannot remember the session port: \(error)"
            }
        }
        return (bound, note)
    }
}
