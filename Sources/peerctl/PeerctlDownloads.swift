import FoundationEssentials
import Glibc
import PeerKit
import PeerSystem
import PeerTools

/// `downloads`, `fetch` and `quick-save` (issue 45): files out of the
/// download directory only the service can read, and a paired peer's
/// Quick Save rule.
extension PeerctlCommands {
    func downloads(_ folder: String) throws(ControlClientError) -> Int32 {
        let entries = try DownloadFetcher(client: client, app: app, keep: true).list(folder)
        if json {
            emit(PeerctlRenderer.json(DownloadsResult(folder: folder, entries: entries, entriesOmitted: 0)))
            return 0
        }
        guard !entries.isEmpty else {
            emit(folder.isEmpty ? "nothing has landed" : "'\(TerminalText.escape(folder))' is empty")
            return 0
        }
        var table = TextTable(header: ["NAME", "SIZE", "MODIFIED"])
        for entry in entries {
            let name = entry.kind == DownloadEntry.folder ? entry.name + "/" : entry.name
            table.rows.append([TerminalText.escape(name), entry.kind == DownloadEntry.folder ? "-" : ProgressLine.bytes(entry.size),
                               Date(timeIntervalSince1970: TimeInterval(entry.mtime)).formatted(.iso8601)])
        }
        emit(table.render())
        return 0
    }

    func fetch(_ folder: String, into: String?, keep: Bool) throws(ControlClientError) -> Int32 {
        guard let target = into ?? UserDownloads.current().map({ UserDownloads.target(for: folder, downloads: $0) }) else {
            printError("no home folder to put the files in: give --into DIR")
            return 2
        }
        let interactive = !json && isatty(STDERR_FILENO) == 1
        let summary = try DownloadFetcher(client: client, app: app, keep: keep).fetchAll(folder: folder, into: target) { sofar in
            if interactive { Self.progress("\r\(sofar.files) files, \(ProgressLine.bytes(sofar.bytes))\u{1b}[K") }
        }
        if interactive { Self.progress("\r\u{1b}[K") }
        if json {
            emit(PeerctlRenderer.json(summary))
        } else {
            for failure in summary.failed { printError("\(TerminalText.escape(failure.path)): \(TerminalText.escape(failure.error))") }
            emit(summary.files == 0 && summary.failed.isEmpty ? "nothing to fetch in '\(TerminalText.escape(folder))'"
                 : "\(summary.files) files, \(ProgressLine.bytes(summary.bytes)), into \(TerminalText.escape(target))")
        }
        return summary.failed.isEmpty ? 0 : 1
    }

    func quickSave(_ selector: String, folder: String?) throws(ControlClientError) -> Int32 {
        var params = ControlParams(peer: selector)
        if let folder {
            params.into = folder.hasPrefix("/") ? folder : Self.workingDirectory() + "/" + folder
        }
        let record = try client.call(.quickSave, params: params)
        if json {
            emit(PeerctlRenderer.json(record))
        } else if let rule = record.quickSave {
            emit("Quick Save for '\(TerminalText.escape(record.name))': its files are accepted without asking and go to \(TerminalText.escape(rule.folder)) (by peerd-agent, or 'peerctl fetch \(TerminalText.escape(record.name))')")
        } else {
            emit("Quick Save for '\(TerminalText.escape(record.name))' is off")
        }
        return 0
    }

    /// Draws `text` over the progress line on stderr.
    private static func progress(_ text: String) {
        let bytes = Array(text.utf8)
        bytes.withUnsafeBytes { _ = write(2, $0.baseAddress, $0.count) }
    }

    /// The working directory, for a relative FOLDER.
    private static func workingDirectory() -> String {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        guard getcwd(&buffer, buffer.count) != nil else { return "." }
        return String(decoding: buffer.prefix(while: { $0 != 0 }).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
