import FoundationEssentials
import Glibc
import PeerKit
import PeerSystem
import PeerTools

/// `send-file`, `transfers`, `accept-transfer`, `decline-transfer`, `cancel-transfer`;
/// with `--app`, of that app alone.
extension PeerctlCommands {
    /// Files per `sendFile` request: their descriptors go with the line.
    static let filesPerRequest = 64

    func sendFile(_ selector: String, paths: [String], resume: String?, wait: Bool) throws(ControlClientError) -> Int32 {
        let walk: FileWalk
        do { walk = try FileWalk(paths) } catch {
            printError(error.description)
            return 1
        }
        for note in walk.skipped { printError("skipped \(note)") }
        guard !walk.items.isEmpty else {
            printError("nothing to send")
            return 1
        }
        if wait { _ = try client.call(.subscribe, params: scoped(ControlParams())) }
        var transfer: TransferInfo?
        var start = 0
        while start < walk.items.count {
            let part = Array(walk.items[start..<min(walk.items.count, start + Self.filesPerRequest)])
            var descriptors: [FileDescriptor] = []
            defer { descriptors.forEach { $0.close() } }
            for item in part {
                let fd = open(item.path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)
                guard fd >= 0 else {
                    printError("cannot open '\(item.path)': \(String(cString: strerror(errno)))")
                    if let transfer { _ = try? client.call(.cancelTransfer, params: scoped(ControlParams(transfer: transfer.id))) }
                    return 1
                }
                descriptors.append(FileDescriptor(rawValue: fd))
            }
            let end = start + part.count
            var params = scoped(ControlParams(peer: selector))
            params.transfer = transfer?.id ?? resume
            params.files = part.map(\.entry)
            params.more = end < walk.items.count
            transfer = try client.call(.sendFile, params: params, descriptors: descriptors).transfer
            start = end
        }
        guard let transfer else { return 1 }
        if !wait {
            emit(json ? PeerctlRenderer.json(transfer) : "offered \(transfer.totalFiles) files (\(ProgressLine.bytes(transfer.totalBytes))) to '\(TerminalText.escape(transfer.name))': transfer \(transfer.id)")
            return 0
        }
        if !json {
            printError("offering \(transfer.totalFiles) files (\(ProgressLine.bytes(transfer.totalBytes))) to '\(transfer.name)' as transfer \(transfer.id)")
            if transfer.state == .interrupted { printError("'\(transfer.name)' is not connected: the offer goes out when a session is up") }
        }
        return try follow(transfer.id)
    }

    /// Follows a transfer's events until it ends: a bar on a terminal
    /// (not with NO_COLOR), event lines with --json.
    private func follow(_ id: String) throws(ControlClientError) -> Int32 {
        let bar = !json && isatty(2) == 1 && ProcessInfo.processInfo.environment["NO_COLOR"] == nil
        var drawn = false
        while true {
            let (event, _) = try client.nextEvent()
            if event.type == .error {
                printError(event.error?.message ?? "the daemon ended the subscription")
                return 1
            }
            guard let info = event.transfer, info.id == id else { continue }
            if json { emit(PeerctlRenderer.json(event)) }
            if bar {
                let line = "\r\u{1B}[K" + ProgressLine.render(info)
                line.withCString { _ = write(2, $0, strlen($0)) }
                drawn = true
            }
            switch event.type {
            case .transferCompleted:
                if drawn { "\n".withCString { _ = write(2, $0, 1) } }
                if !json { emit("sent \(info.filesDone) files (\(ProgressLine.bytes(info.bytes))) to '\(TerminalText.escape(info.name))'") }
                return 0
            case .transferFailed:
                if drawn { "\n".withCString { _ = write(2, $0, 1) } }
                printError("transfer \(id) \(info.state.rawValue): \(info.reason?.rawValue ?? "")\(info.detail.map { ": \($0)" } ?? "")")
                return 1
            default:
                continue
            }
        }
    }

    func transfers(_ id: String?) throws(ControlClientError) -> Int32 {
        var result = try client.call(.transfers, params: scoped(ControlParams(transfer: id)))
        // One transfer: its files come a page at a time (at most 1,000); all are fetched.
        if id != nil, result.transfers.count == 1, var files = result.transfers[0].files {
            var pages = 1
            while (result.transfers[0].filesOmitted ?? 0) > 0, let last = files.last, pages < 1000 {
                var params = scoped(ControlParams(transfer: result.transfers[0].id))
                params.offset = last.index + 1
                let next = try client.call(.transfers, params: params)
                // A page that does not move on ends the listing (a daemon
                // from 0.3.0 as first released repeats an ended transfer's summary).
                guard let more = next.transfers.first?.files, let first = more.first, first.index > last.index else { break }
                files += more
                pages += 1
                if more.last!.index + 1 >= next.transfers[0].totalFiles { break }
            }
            result.transfers[0].files = files
            result.transfers[0].filesOmitted = result.transfers[0].totalFiles - files.count
            if result.transfers[0].filesOmitted == 0 { result.transfers[0].filesOmitted = nil }
        }
        if json {
            emit(PeerctlRenderer.json(result))
            return 0
        }
        guard !result.transfers.isEmpty else {
            emit("no transfers")
            return 0
        }
        var table = TextTable(header: ["ID", "DIR", "PEER", "STATE", "FILES", "BYTES", "RATE"])
        for t in result.transfers {
            table.rows.append([String(t.id.prefix(8)), t.direction.rawValue, TerminalText.escape(t.name), t.state.rawValue + (t.reason.map { " (\($0.rawValue))" } ?? ""),
                               "\(t.filesDone)/\(t.acceptedFiles > 0 ? t.acceptedFiles : t.totalFiles)",
                               "\(ProgressLine.bytes(t.bytes))/\(ProgressLine.bytes(t.acceptedBytes > 0 ? t.acceptedBytes : t.totalBytes))",
                               t.rate > 0 ? ProgressLine.bytes(Int64(t.rate)) + "/s" : "-"])
        }
        var text = table.render()
        if id != nil {
            for t in result.transfers {
                if let directory = t.directory { text += "\nfolder: \(TerminalText.escape(directory))" }
                if let detail = t.detail { text += "\n\(TerminalText.escape(detail))" }
                for file in t.files ?? [] {
                    text += "\n  \(file.index)  \(TerminalText.escape(file.name))  \(ProgressLine.bytes(file.size))  \(file.verdict)\(file.savedAs.map { " -> \(TerminalText.escape($0))" } ?? "")"
                }
            }
        }
        emit(text)
        return 0
    }

    func answerTransfer(_ call: ControlCall<TransferResult>, id: String, files: [Int]?) throws(ControlClientError) -> Int32 {
        var params = scoped(ControlParams(transfer: id))
        params.accept = files
        let info = try client.call(call, params: params).transfer
        if json {
            emit(PeerctlRenderer.json(info))
        } else {
            let verb = call.method == .acceptTransfer ? "accepted" : call.method == .declineTransfer ? "declined" : "cancelled"
            emit("\(verb) transfer \(info.id) (\(info.direction == .send ? "to" : "from") '\(TerminalText.escape(info.name))')\(info.directory.map { "; files land in \(TerminalText.escape($0))" } ?? "")")
        }
        return 0
    }
}
