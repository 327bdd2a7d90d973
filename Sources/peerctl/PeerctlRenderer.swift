import FoundationEssentials
import PeerSystem
import PeerTools
import PeerProtocol

/// peerctl's human output: aligned tables and key/value blocks.
struct PeerctlRenderer {
    /// The moment "ago" is measured from.
    let now: Date

    /// `peerctl status`.
    func status(_ s: DaemonStatus) -> String {
        var table = TextTable(header: ["", ""])
        let name = s.name == s.requestedName ? s.name : "\(s.name) (asked for '\(s.requestedName)'; renamed after a collision)"
        table.rows = [
            ["name", name],
            ["peer id", s.peerId],
            ["service", "\(s.serviceType), port \(s.port), \(s.publication.rawValue)"],
            ["avahi", s.avahi.rawValue + (s.avahiMessage.map { ": \($0)" } ?? "")],
            ["interfaces", s.interfaces.isEmpty ? "all" : s.interfaces.joined(separator: ", ")],
            ["peers", "\(s.peers) (\(s.lostPeers) lost; cap \(s.maxPeers); \(s.unverifiedPeers) unverified, cap \(s.maxUnverifiedPeers); \(s.peersRejected) turned away)"],
            ["sessions", "\(s.sessions)"],
            ["events", "last seq \(s.eventSeq); \(s.subscribers) subscriber\(s.subscribers == 1 ? "" : "s")"],
            ["socket", s.socket],
            ["daemon", "peerd \(s.version), pid \(s.pid), up \(s.uptime)s"],
            ["wire", s.wire.map { "version \($0), features: \((s.features ?? []).joined(separator: " "))" } ?? "version 1, no features (a 0.1.0 daemon)"],
        ]
        if let d = s.datagrams {
            let dropped = d.dropped.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")
            table.rows.append(["datagrams", (d.port.map { "UDP port \($0)" } ?? "none: \(d.error ?? "no socket")")
                + "; sent \(d.sent), received \(d.received), junk \(d.junk), kernel dropped \(d.kernelDropped)\(dropped.isEmpty ? "" : ", dropped: " + dropped); \(d.receivers) reader\(d.receivers == 1 ? "" : "s")"])
        }
        if let w = s.wideArea {
            table.rows.append(["wide-area", "\(w.domain): " + (w.server.map { "server \($0), zone \(w.zone ?? "?")" } ?? "no server: \(w.serverError ?? "looking for it")")
                + "; \(w.peers) peer\(w.peers == 1 ? "" : "s") found"
                + (w.browseDomains.count > 1 ? "; also browsing \(w.browseDomains.dropFirst().joined(separator: ", "))" : "")])
            let last = w.lastUpdate.map { "; last update \($0)" + (w.lastUpdateAt.map { " (\(RelativeTime.describe($0, now: now)))" } ?? "") } ?? ""
            table.rows.append(["wide-area publication", w.publication == "off" ? "off: no --dns-update-key (browsing only)" : "\(w.publication) as '\(w.name ?? s.name)'\(last)"])
        }
        if s.lanePort != nil || s.laneError != nil {
            table.rows.append(["bulk lanes", s.lanePort.map { "TCP port \($0)" } ?? "none: \(s.laneError ?? "no port")"])
        }
        return String(table.render().split(separator: "\n", omittingEmptySubsequences: false).dropFirst().joined(separator: "\n"))
    }

    /// `peerctl peers`.
    func peers(_ peers: [PeerSnapshot]) -> String {
        guard !peers.isEmpty else { return "no peers found yet" }
        var table = TextTable(header: ["ID", "NAME", "STATE", "PAIRED", "SEEN", "VIA", "ADDRESSES", "PEER ID"])
        for peer in peers {
            table.rows.append([
                String(peer.id.uuidString.lowercased().prefix(8)),
                peer.name,
                peer.state.rawValue,
                peer.paired ? "yes" : "no",
                peer.lost ? "lost \(RelativeTime.describe(peer.lastSeen, now: now))" : "now",
                peer.sources?.joined(separator: ",") ?? "-",
                peer.endpoints.isEmpty ? peer.session.map { "(session \($0))" } ?? peer.learnedAddress.map { "(learned \($0))" } ?? "-"
                    : addresses(peer.endpoints),
                peer.peerId.map { String($0.prefix(12)) } ?? "-",
            ])
        }
        return table.render()
    }

    /// `peerctl peer ID`.
    func peer(_ peer: PeerSnapshot, datagrams: DatagramInfo? = nil, bulk: BulkPathInfo? = nil) -> String {
        var facts = TextTable(header: ["", ""])
        facts.rows = [
            ["id", peer.id.uuidString.lowercased()],
            ["name", peer.name],
            ["peer id", peer.peerId ?? "- (foreign advertiser)"],
            ["state", peer.state.rawValue],
            ["paired", peer.paired ? "yes" : "no"],
            ["session", peer.session.map { "with \($0)" } ?? "-"],
            ["found via", peer.sources?.joined(separator: ", ") ?? "-"],
            ["learned at", peer.learnedAddress.map { "\($0) (from a session, not mDNS)" } ?? "-"],
            ["release", peer.release.map { "peerd \($0)" } ?? "- (no session has told us yet)"],
            ["features", peer.features.map { $0.isEmpty ? "none (a 0.1.0 peer: messages, queues, pairing and channels only)" : $0.joined(separator: " ") } ?? "-"],
            ["seen", peer.lost ? "lost, last seen \(peer.lastSeen.formatted(.iso8601)) (\(RelativeTime.describe(peer.lastSeen, now: now)))" : "now"],
        ]
        for (name, app) in (peer.apps ?? [:]).sorted(by: { $0.key < $1.key }) {
            let info = app.info.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
            facts.rows.append(["app \(name)", (app.confirmed ? "confirmed" : "advertised") + (info.isEmpty ? "" : ": " + info)])
        }
        if let datagrams { facts.rows.append(["datagrams", PeerPathText.datagrams(datagrams)]) }
        if let bulk { facts.rows.append(["bulk", PeerPathText.bulk(bulk)]) }
        for key in peer.info.keys.sorted() { facts.rows.append(["info \(key)", peer.info[key] ?? ""]) }
        var out = String(facts.render().split(separator: "\n", omittingEmptySubsequences: false).dropFirst().joined(separator: "\n"))
        if !peer.endpoints.isEmpty {
            var endpoints = TextTable(header: ["INTERFACE", "FAMILY", "ADDRESS", "PORT"])
            endpoints.rows = peer.endpoints.map { [$0.interface, $0.family.rawValue, $0.address, String($0.port)] }
            out += "\n" + endpoints.render()
        }
        return out
    }

    /// JSON, one object per line.
    static func json(_ value: some Encodable) -> String {
        (try? JSONLines.encode(value)).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
    }

    /// `peerctl invitations`.
    func invitations(_ list: [InvitationInfo]) -> String {
        guard !list.isEmpty else { return "no pending invitations" }
        var table = TextTable(header: ["ID", "FROM", "PEER", "EXPIRES", "CONTEXT"])
        for invitation in list {
            table.rows.append([String(invitation.id.prefix(8)), invitation.name, String(invitation.peer.uuidString.lowercased().prefix(8)),
                               "in \(max(0, Int(invitation.expires.timeIntervalSince(now))))s", invitation.context])
        }
        return table.render()
    }

    /// `peerctl pairings`.
    func pairings(_ list: [PairingInfo]) -> String {
        guard !list.isEmpty else { return "no pairings in progress" }
        var table = TextTable(header: ["ID", "PEER", "SIDE", "CODE", "EXPIRES"])
        for p in list {
            table.rows.append([String(p.id.prefix(8)), p.name, p.initiator ? "we asked" : "asks us", p.code ?? "-",
                               "in \(max(0, Int(p.expires.timeIntervalSince(now))))s"])
        }
        return table.render()
    }

    /// `peerctl send` to several peers: a line each.
    func groupSend(_ result: GroupSendResult) -> String {
        guard !result.results.isEmpty else { return "no peer is connected: nothing sent" }
        return result.results.map { entry in
            let who = entry.name.map { "'\(TerminalText.escape($0))'" } ?? "'\(TerminalText.escape(entry.selector))'"
            if let error = entry.error { return "\(who): not sent: \(TerminalText.escape(error.message))" }
            guard let sent = entry.result else { return "\(who): no answer" }
            return sent.queued ? "\(who): queued (\(sent.bytes) bytes)" : "\(who): sent (\(sent.bytes) bytes, message \(sent.number ?? 0) of session \(sent.session ?? 0))"
        }.joined(separator: "\n")
    }

    /// `peerctl apps`.
    func apps(_ list: [AppRow]) -> String {
        guard !list.isEmpty else { return "no apps registered here" }
        var table = TextTable(header: ["APP", "UID", "CLIENTS", "DECLARED", "INFO"])
        for app in list {
            table.rows.append([app.name, String(app.uid), String(app.clients), app.declared ? "yes" : "no",
                               app.info.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ")])
        }
        return table.render()
    }

    /// `peerctl queue`.
    func queues(_ list: [QueueInfo]) -> String {
        guard !list.isEmpty else { return "no queued messages" }
        var table = TextTable(header: ["ID", "NAME", "MESSAGES", "BYTES", "STATE"])
        for q in list {
            table.rows.append([q.peer.map { String($0.uuidString.lowercased().prefix(8)) } ?? "-", q.name, String(q.messages), String(q.bytes),
                               q.busy.map { "busy: \($0)" } ?? "waiting"])
        }
        return table.render()
    }

    /// `peerctl inbox`.
    func inbox(_ result: InboxResult) -> String {
        let summary = "\(result.count) message\(result.count == 1 ? "" : "s") waiting, \(result.bytes) of \(result.limit) bytes"
        guard !result.messages.isEmpty else { return result.count == 0 ? "the inbox is empty (\(result.bytes) of \(result.limit) bytes)" : summary }
        var table = TextTable(header: ["ID", "FROM", "NAME", "RECEIVED", "BYTES"])
        for m in result.messages {
            table.rows.append([String(m.id), m.from.map { String($0.uuidString.lowercased().prefix(8)) } ?? m.peerId, m.name ?? "-",
                               RelativeTime.describe(m.received, now: now), String(m.size)])
        }
        return table.render() + "\n" + summary
    }

    /// `peerctl paired`.
    func trusted(_ list: [TrustRecord]) -> String {
        guard !list.isEmpty else { return "no paired peers" }
        var table = TextTable(header: ["ID", "NAME", "PEER ID", "PAIRED", "QUICK SAVE"])
        for r in list {
            table.rows.append([String(r.uuid.uuidString.lowercased().prefix(8)), r.name, r.peerId, r.pairedAt.formatted(.iso8601),
                               r.quickSave.map { "\($0.folder) (uid \($0.uid))" } ?? "-"])
        }
        return table.render()
    }

    /// One `watch` line.
    func event(_ event: ControlEvent) -> String {
        TerminalText.escape(eventLine(event))
    }

    private func eventLine(_ event: ControlEvent) -> String {
        let head = "\(event.time.formatted(.iso8601))  #\(event.seq)  \(event.type.rawValue.padding(16))"
        let who = event.peer.map { "\($0.id.uuidString.lowercased().prefix(8))  \($0.name)" } ?? ""
        switch event.type {
        case .peerFound, .peerUpdated, .peerLost, .peerRemoved:
            return "\(head)  \(who)  \(addresses(event.peer?.endpoints ?? []))"
        case .stateChanged, .inviteFailed:
            return "\(head)  \(who)  \(event.peer?.state.rawValue ?? "")\(event.reason.map { " (\($0.rawValue))" } ?? "")\(event.detail.map { ": \($0)" } ?? "")"
        case .invitation:
            let invitation = event.invitation
            return "\(head)  \(who)  id \(invitation?.id ?? "")  \(invitation?.context ?? "")"
        case .delivered:
            return "\(head)  \(who)  session \(event.delivery?.session ?? 0): messages through \(event.delivery?.through ?? 0) delivered"
        case .appStateChanged:
            let a = event.app
            return "\(head)  \(who)  app \(a?.app ?? "?"): \(a?.state.rawValue ?? "")\(a?.reason.map { " (\($0.rawValue))" } ?? "")\(a?.detail.map { ": \($0)" } ?? "")"
        case .undelivered:
            let d = event.delivery
            return "\(head)  \(who)  session \(d?.session ?? 0): app \(d?.app ?? "?") refused messages from \(d?.from ?? 0) on: \(d?.text ?? "")"
        case .message:
            let from = event.message.map { $0.from?.uuidString.lowercased().prefix(8).description ?? $0.peerId ?? "" } ?? ""
            return "\(head)  from \(from)  \(event.message?.size ?? 0) bytes\(event.message?.inbox.map { " (inbox #\($0))" } ?? "")"
        case .stored:
            let m = event.stored
            return "\(head)  from \(m.map { $0.from?.uuidString.lowercased().prefix(8).description ?? $0.peerId } ?? "")  \(m?.size ?? 0) bytes kept in the inbox as #\(m?.id ?? 0)"
        case .identityMismatch:
            let m = event.mismatch
            return "\(head)  \(who)  \(m?.address ?? ""): advertised \(m?.expected ?? ""), proved \(m?.actual ?? "")"
        case .pairingRequest, .pairingCode, .paired, .pairingFailed, .unpaired:
            let pairing = event.pairing
            var text = "\(head)  \(who)"
            if let pairing { text += "  pairing \(pairing.id)" }
            if let code = pairing?.code, event.type != .paired { text += "  code \(code)" }
            if let failure = event.pairingFailure { text += "  (\(failure.rawValue))" }
            return text
        case .transferOffered, .transferProgress, .transferCompleted, .transferFailed:
            guard let t = event.transfer else { return head }
            var text = "\(head)  \(who)  transfer \(t.id.prefix(8)) \(t.direction.rawValue) \(t.state.rawValue)  \(t.filesDone)/\(t.acceptedFiles > 0 ? t.acceptedFiles : t.totalFiles) files  \(ProgressLine.bytes(t.bytes))/\(ProgressLine.bytes(t.acceptedBytes > 0 ? t.acceptedBytes : t.totalBytes))"
            if let reason = t.reason { text += "  (\(reason.rawValue)\(t.detail.map { ": \($0)" } ?? ""))" }
            return text
        case .error:
            return "\(head)  \(event.error?.description ?? "")"
        case .channelOpened:
            return "\(head)  \(who)  channel open"
        }
    }

    private func addresses(_ endpoints: [Endpoint]) -> String {
        guard !endpoints.isEmpty else { return "-" }
        let unique = endpoints.reduce(into: [String]()) { list, e in
            let text = e.hostPort
            if !list.contains(text) { list.append(text) }
        }
        return unique.joined(separator: " ")
    }
}

private extension String {
    func padding(_ width: Int) -> String { count >= width ? self : self + String(repeating: " ", count: width - count) }
}
