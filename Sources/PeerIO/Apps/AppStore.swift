import FoundationEssentials
import Glibc
import PeerCore
import PeerProtocol

/// The declared apps on disk (issue 23): `<state-dir>/apps.json`, written
/// whole and crash-safely (``AtomicFile``) each time the declarations
/// change, mode 0600. A new file: releases before apps never read it.
///
/// Layout (docs/architecture.md, "State across releases"):
/// `{"v":1,"apps":[{"name":"chat","uid":1001,"info":["room=lobby"]}]}`.
/// A file of another version stops start-up, so a downgrade never
/// rewrites what it cannot read; an entry whose name breaks the rules is
/// skipped with a warning, and one whose info does keeps no info; neither
/// is fatal.
struct AppStore {
    /// The layout this release writes.
    static let version = 1
    /// The most bytes read back (15 apps of 400 bytes of info fit many times).
    static let limit = 64 * 1024

    private struct File: Codable {
        var v: Int
        var apps: [Entry]
    }

    private struct Entry: Codable {
        var name: String
        var uid: UInt32
        var info: [String]
    }

    /// The file's path.
    let path: String
    private let logger: Logger

    /// The store of `stateDirectory`.
    init(stateDirectory: String, logger: Logger) {
        path = stateDirectory + "/apps.json"
        self.logger = logger
    }

    /// What a layout this release cannot read holds, for start-up to refuse
    /// (nil when the file is absent or readable).
    func unreadable() -> String? {
        guard let bytes = try? AtomicFile.read(path, limit: Self.limit) else { return nil }
        guard let file = try? JSONDecoder().decode(File.self, from: Data(bytes)) else { return "not a declared-apps file" }
        return file.v == Self.version ? nil : "a declared-apps file of version \(file.v)"
    }

    /// The declared apps read back; nothing when the file is absent.
    func load() -> [AppRegistration] {
        let bytes: [UInt8]?
        do { bytes = try AtomicFile.read(path, limit: Self.limit) } catch {
            logger.warning("declared apps: \(error); starting with none")
            return []
        }
        guard let bytes, let file = try? JSONDecoder().decode(File.self, from: Data(bytes)), file.v == Self.version else { return [] }
        return file.apps.compactMap { entry in
            let name: AppName
            do { name = try AppName(entry.name) } catch {
                logger.warning("declared app '\(entry.name)' in \(path) skipped: \(error)")
                return nil
            }
            // Info a rule added since refuses (control characters, issue 42)
            // costs the app its info, not its declaration.
            let info: AppInfo
            do { info = try AppInfo(entry.info.map(TXTEntry.init(raw:)), for: name) } catch {
                logger.warning("declared app '\(entry.name)' in \(path) keeps no info: \(error)")
                info = .empty
            }
            return AppRegistration(name: name, uid: entry.uid, info: info, declared: true)
        }
    }

    /// Writes `apps` (the declared ones) in place of what is there.
    func save(_ apps: [AppRegistration]) throws(SystemError) {
        let file = File(v: Self.version, apps: apps.map { Entry(name: $0.name.text, uid: $0.uid, info: $0.info.entries.map(\.encoded)) })
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        guard let data = try? encoder.encode(file) else { throw SystemError("encode", errno: EINVAL, context: path) }
        try AtomicFile.write(path, contents: Array(data) + [0x0A])
    }
}
