import FoundationEssentials
import Glibc
import PeerKit
import PeerSystem
import PeerTools

/// `peerctl top` (issue 14, part 1): the shell around the pure
/// ``TopModel``, ``TopInteraction`` and ``TopView``. It subscribes first
/// and then fetches the lists (so no event falls between), waits on the
/// terminal, the event socket and the signal pipe with one `poll`, and
/// draws at most 10 times a second, each time one write of the cells that
/// changed (``ScreenDiff``). Requests go on a second connection, so their
/// answers never mix with the event stream.
struct PeerctlTop {
    /// The control socket.
    let socketPath: String
    /// `--json` (for the snapshot when stdout is not a terminal).
    let json: Bool

    /// Draws no more often than this.
    private static let frameInterval: Duration = .milliseconds(100)
    /// A resize is laid out once the size has held this long.
    private static let resizeSettle: Duration = .milliseconds(60)

    /// Runs until `q`, Ctrl-C or a signal; the exit status.
    func run() throws(ControlClientError) -> Int32 {
        let environment = ProcessInfo.processInfo.environment
        let dumb = environment["TERM"] == "dumb" || environment["TERM"] == nil
        guard isatty(0) == 1, isatty(1) == 1, !dumb else { return try snapshot() }
        let color = (environment["NO_COLOR"] ?? "").isEmpty
        var events = try ControlClient(path: socketPath)
        var requests = try ControlClient(path: socketPath)
        var model = TopModel()
        try load(&model, events: events, requests: requests, since: nil)
        let terminal: Terminal
        do { terminal = try Terminal() } catch {
            printError("cannot take over the terminal: \(error)")
            return 1
        }
        defer { terminal.restore() }

        var interaction = TopInteraction()
        var keys = TopKeyDecoder()
        var shown: ScreenFrame?
        var size = Terminal.size() ?? (80, 24)
        var dirty = true
        var lastDraw = ContinuousClock.now - Self.frameInterval
        var resizeAt: ContinuousClock.Instant?
        var daemonGone = false
        var nextRetry = ContinuousClock.now
        var buffer = [UInt8](repeating: 0, count: 4096)

        while true {
            let now = ContinuousClock.now
            if let due = resizeAt, now >= due {
                resizeAt = nil
                size = Terminal.size() ?? size
                dirty = true
            }
            // Ages ("12s ago") move on their own: a quiet screen still redraws each second.
            if now - lastDraw >= .seconds(1) { dirty = true }
            if dirty, resizeAt == nil, now - lastDraw >= Self.frameInterval {
                interaction.pageRows = max(1, size.height / 2)
                let frame = TopView.frame(model, interaction, width: size.width, height: size.height, now: Date())
                terminal.write(ScreenDiff.render(from: shown, to: frame, color: color))
                shown = frame
                lastDraw = now
                dirty = false
            }
            var waits = [pollfd(fd: 0, events: Int16(POLLIN), revents: 0), pollfd(fd: terminal.signals, events: Int16(POLLIN), revents: 0)]
            if !daemonGone { waits.append(pollfd(fd: events.pollDescriptor, events: Int16(POLLIN), revents: 0)) }
            var timeout = Syscall.pollTimeout(until: lastDraw + (dirty ? Self.frameInterval : .seconds(1)), from: now)
            if let due = resizeAt { timeout = min(timeout, Syscall.pollTimeout(until: due, from: now)) }
            if daemonGone { timeout = min(timeout, Syscall.pollTimeout(until: nextRetry, from: now)) }
            _ = poll(&waits, nfds_t(waits.count), timeout)

            if waits[1].revents != 0 {
                var signals = [UInt8](repeating: 0, count: 16)
                let n = read(terminal.signals, &signals, signals.count)
                for sig in signals.prefix(max(0, n)) {
                    if Int32(sig) == SIGWINCH { resizeAt = ContinuousClock.now + Self.resizeSettle } else { return 0 }
                }
            }
            if waits[0].revents != 0 {
                let n = read(0, &buffer, buffer.count)
                if n == 0 { return 0 }
                for key in keys.feed(Array(buffer.prefix(max(0, n)))) {
                    for command in interaction.handle(key, model: &model) {
                        switch command {
                        case .quit: return 0
                        case .redrawAll: shown = nil
                        default: interaction.note = perform(command, model: model, requests: requests)
                        }
                    }
                    dirty = true
                }
            }
            if !daemonGone, waits.count > 2, waits[2].revents != 0 {
                do {
                    let arrived = try events.availableEvents()
                    for event in arrived {
                        model.apply(event)
                        // Queued messages move when a paired peer comes or goes.
                        if event.type == .stateChanged, let queues = try? requests.call(.queue) {
                            model.setQueues(queues.queues)
                        }
                    }
                    dirty = dirty || !arrived.isEmpty
                } catch {
                    daemonGone = true
                    interaction.note = "peerd went away (\(error)); reconnecting…"
                    dirty = true
                }
            }
            if daemonGone, ContinuousClock.now >= nextRetry {
                nextRetry = ContinuousClock.now + .seconds(1)
                if let fresh = try? ControlClient(path: socketPath), let freshRequests = try? ControlClient(path: socketPath),
                   (try? load(&model, events: fresh, requests: freshRequests, since: model.lastSeq)) != nil {
                    events = fresh
                    requests = freshRequests
                    daemonGone = false
                    interaction.note = "reconnected to peerd"
                    dirty = true
                }
            }
        }
    }

    /// Subscribes on `events` (from `since` after a reconnect), then reads
    /// the lists on `requests`.
    private func load(_ model: inout TopModel, events: ControlClient, requests: ControlClient, since: UInt64?) throws(ControlClientError) {
        _ = try events.call(.subscribe, params: ControlParams(since: since))
        let peers = try requests.call(.peers).peers
        let invitations = try requests.call(.invitations).invitations
        let pairings = try requests.call(.pairings).pairings
        let transfers = try requests.call(.transfers).transfers
        let queues = try requests.call(.queue).queues
        model.load(peers: peers, invitations: invitations, pairings: pairings, transfers: transfers, queues: queues)
        // Events that came before the subscribe answer were kept by the
        // client, where poll cannot see them: apply them now.
        for event in try events.availableEvents() { model.apply(event) }
    }

    /// Asks the daemon; the words for the key line.
    private func perform(_ command: TopCommand, model: TopModel, requests: ControlClient) -> String {
        let name = { (peer: UUID) in "'" + TerminalText.escape(model.peers[peer]?.name ?? "peer") + "'" }
        do {
            switch command {
            case .invite(let peer):
                let result = try requests.call(.invite, params: ControlParams(peer: peer.uuidString))
                return result.existing ? "\(name(peer)) is already \(result.peer.state.rawValue)" : "invited \(name(peer))"
            case .pair(let peer):
                _ = try requests.call(.pair, params: ControlParams(peer: peer.uuidString))
                return "pairing with \(name(peer)): confirm the code on it"
            case .disconnect(let peer):
                _ = try requests.call(.disconnect, params: ControlParams(peer: peer.uuidString))
                return "closing the session with \(name(peer))"
            case .accept(let id), .decline(let id):
                let accept = if case .accept = command { true } else { false }
                let info = try requests.call(accept ? .accept : .decline, params: ControlParams(invitation: id))
                return "\(accept ? "accepted" : "declined") the invitation from \(name(info.peer))"
            case .quit, .redrawAll:
                return ""
            }
        } catch {
            return "✗ \(error)"
        }
    }

    /// Not a terminal (or `TERM=dumb`): one plain snapshot, or the lists as JSON, and no escape codes.
    private func snapshot() throws(ControlClientError) -> Int32 {
        let client = try ControlClient(path: socketPath)
        var model = TopModel()
        let peers = try client.call(.peers).peers
        let invitations = try client.call(.invitations).invitations
        let pairings = try client.call(.pairings).pairings
        let transfers = try client.call(.transfers).transfers
        let queues = try client.call(.queue).queues
        if json {
            emit(PeerctlRenderer.json(TopSnapshot(peers: peers, invitations: invitations, pairings: pairings, transfers: transfers, queues: queues)))
            return 0
        }
        model.load(peers: peers, invitations: invitations, pairings: pairings, transfers: transfers, queues: queues)
        let width = Int(ProcessInfo.processInfo.environment["COLUMNS"] ?? "") ?? 140
        let detailHeight = model.selectedRow.map { TopDetail.lines(for: $0, in: model, now: Date()).count } ?? 1
        let height = max(TopLayout.minHeight, max(peers.count + 1, detailHeight) + 2)
        let frame = TopView.frame(model, TopInteraction(), width: max(width, TopLayout.narrowWidth + 1), height: height, now: Date())
        emit(frame.plainLines.dropLast().joined(separator: "\n"))
        return 0
    }
}
