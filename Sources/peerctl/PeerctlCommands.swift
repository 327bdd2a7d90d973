import FoundationEssentials
import Glibc
import PeerKit
import PeerSystem
import PeerTools

/// Runs one peerctl command against the daemon; returns the exit code.
struct PeerctlCommands {
    let client: ControlClient
    let json: Bool
    /// `--app`: the app this command acts as (`peers` lists its peers
    /// only; `send`, `recv`, `take` and `inbox` send, take and list its
    /// messages alone).
    let app: String?

    /// `params` for this command's app.
    func scoped(_ params: ControlParams) -> ControlParams {
        var params = params
        params.app = app
        return params
    }

    func run(_ command: PeerctlCommand) throws(ControlClientError) -> Int32 {
        let render = PeerctlRenderer(now: Date())
        switch command {
        case .status:
            let status = try client.call(.status)
            emit(json ? PeerctlRenderer.json(status) : render.status(status))
        case .peers:
            var params = ControlParams()
            params.app = app
            let result = try client.call(.peers, params: params)
            emit(json ? PeerctlRenderer.json(result) : render.peers(result.peers))
        case .peer(let selector):
            let result = try client.call(.peer, params: ControlParams(peer: selector))
            emit(json ? PeerctlRenderer.json(PeerRowJSON(result: result)) : render.peer(result.peer, datagrams: result.datagrams, bulk: result.bulk))
        case .watch(let since):
            let subscribed = try client.call(.subscribe, params: scoped(ControlParams(since: since)))
            if subscribed.truncated {
                printError("some events after \(since ?? 0) were already discarded; run 'peerctl peers' for the full picture")
            }
            while true {
                let (event, _) = try client.nextEvent()
                emit(json ? PeerctlRenderer.json(event) : PeerctlRenderer(now: Date()).event(event))
                if event.type == .error {
                    printError(event.error?.message ?? "the daemon ended the subscription")
                    return 1
                }
            }
        case .invite(let selector, let context, let timeout, let wait):
            return try invite(selector, context: context, timeout: timeout, wait: wait)
        case .invitations:
            let result = try client.call(.invitations, params: scoped(ControlParams()))
            emit(json ? PeerctlRenderer.json(result) : render.invitations(result.invitations))
        case .accept(let id), .decline(let id):
            let accept = if case .accept = command { true } else { false }
            let info = try client.call(accept ? .accept : .decline, params: ControlParams(invitation: id))
            emit(json ? PeerctlRenderer.json(info) : "\(accept ? "accepted" : "declined") the invitation from '\(TerminalText.escape(info.name))' (\(info.peer.uuidString.lowercased()))")
        case .disconnect(let selector):
            let result = try client.call(.disconnect, params: scoped(ControlParams(peer: selector)))
            let done = app.map { "app '\($0)' left '\(TerminalText.escape(result.peer.name))'" } ?? "closing the session with '\(TerminalText.escape(result.peer.name))'"
            emit(json ? PeerctlRenderer.json(result.peer) : done)
        case .send(let selector, let text, let lines, let queue):
            return try send(selector, text: text, lines: lines, queue: queue)
        case .groupSend(let selectors, let text, let queue):
            var params = ControlParams(data: Data(text == "-" ? readStandardInput() : Array(text.utf8)).base64EncodedString(), queue: queue ? true : nil)
            params.peers = selectors
            params.all = selectors == nil ? true : nil
            let result = try client.call(.sendToMany, params: scoped(params))
            emit(json ? PeerctlRenderer.json(result) : render.groupSend(result))
            return result.results.allSatisfy { $0.error == nil } ? 0 : 1
        case .apps:
            let result = try client.call(.apps)
            emit(json ? PeerctlRenderer.json(result) : render.apps(result.apps))
        case .appsAdd(let name, let info):
            var params = ControlParams()
            params.app = name
            params.info = info
            let row = try client.call(.appAdd, params: params)
            emit(json ? PeerctlRenderer.json(row) : "declared app '\(row.name)', published as \(row.subtype)")
        case .appsRemove(let name):
            var params = ControlParams()
            params.app = name
            _ = try client.call(.appRemove, params: params)
            emit(json ? "{}" : "app '\(name)' is no longer declared")
        case .queue:
            let result = try client.call(.queue)
            emit(json ? PeerctlRenderer.json(result) : render.queues(result.queues))
        case .recv(let from, let count):
            return try receive(from: from, count: count)
        case .inbox(let from, let max):
            let result = try client.call(.inbox, params: scoped(ControlParams(peer: from, max: max)))
            emit(json ? PeerctlRenderer.json(result) : render.inbox(result))
        case .take(let from, let count):
            return try take(from: from, count: count)
        case .wait(let selector, let state, let timeout):
            return try waitFor(selector, state: state, timeout: timeout ?? 30)
        case .pair(let selector):
            return try pair(selector)
        case .pairAccept(let id, let code):
            return try pairAccept(id, code: code)
        case .pairReject(let id):
            let info = try client.call(.pairReject, params: ControlParams(pairing: id))
            emit(json ? PeerctlRenderer.json(info) : "rejected pairing with '\(TerminalText.escape(info.name))'")
        case .pairings:
            let result = try client.call(.pairings)
            emit(json ? PeerctlRenderer.json(result) : render.pairings(result.pairings))
        case .paired:
            let result = try client.call(.paired)
            emit(json ? PeerctlRenderer.json(result) : render.trusted(result.peers))
        case .unpair(let selector):
            let result = try client.call(.unpair, params: ControlParams(peer: selector))
            emit(json ? PeerctlRenderer.json(result.peer) : "unpaired '\(TerminalText.escape(result.peer.name))'")
        case .sendFile(let selector, let paths, let resume, let wait):
            return try sendFile(selector, paths: paths, resume: resume, wait: wait)
        case .transfers(let id):
            return try transfers(id)
        case .acceptTransfer(let id, let files):
            return try answerTransfer(.acceptTransfer, id: id, files: files)
        case .declineTransfer(let id):
            return try answerTransfer(.declineTransfer, id: id, files: nil)
        case .cancelTransfer(let id):
            return try answerTransfer(.cancelTransfer, id: id, files: nil)
        case .downloads(let folder):
            return try downloads(folder)
        case .fetch(let folder, let into, let keep):
            return try fetch(folder, into: into, keep: keep)
        case .quickSave(let peer, let folder):
            return try quickSave(peer, folder: folder)
        case .pipe(let selector, let name):
            return try pipe(selector, name: name)
        case .dgramSend(let selector, let text, let lines, let fallback):
            return try dgramSend(selector, text: text, lines: lines, fallback: fallback)
        case .dgramRecv(let count):
            return try dgramRecv(count: count)
        case .add(let address, let context, let timeout, let wait):
            return try add(address, context: context, timeout: timeout, wait: wait)
        case .help, .version, .top, .doctor:
            break
        }
        return 0
    }

    private func pair(_ selector: String) throws(ControlClientError) -> Int32 {
        _ = try client.call(.subscribe)
        let peer = try client.call(.pair, params: ControlParams(peer: selector)).peer
        if !json { emit("pairing with '\(TerminalText.escape(peer.name))'…") }
        let deadline = ContinuousClock.now + .seconds(3600)
        while true {
            let (event, _) = try client.nextEvent(deadline: deadline)
            guard event.peer?.id == peer.id || event.pairing?.peer == peer.id else { continue }
            switch event.type {
            case .pairingCode:
                let code = event.pairing?.code ?? "?"
                emit(json ? PeerctlRenderer.json(event) : "Pairing code: \(code)\nConfirm it on '\(TerminalText.escape(peer.name))': peerctl pair-accept ID --code \(code)   (ID from 'peerctl pairings' there)")
            case .paired:
                emit(json ? PeerctlRenderer.json(event) : "paired with '\(TerminalText.escape(peer.name))'")
                return 0
            case .pairingFailed:
                if json { emit(PeerctlRenderer.json(event)) }
                printError("pairing with '\(peer.name)' failed: \(event.pairingFailure?.rawValue ?? "unknown")")
                return 1
            case .stateChanged where event.peer?.state == .notConnected, .inviteFailed:
                printError("pairing with '\(peer.name)' failed: the session ended (\(event.reason?.rawValue ?? "unknown"))")
                return 1
            default:
                continue
            }
        }
    }

    private func pairAccept(_ id: String, code: String?) throws(ControlClientError) -> Int32 {
        var typed = code
        if typed == nil {
            guard isatty(0) == 1 else {
                printError("non-interactive use needs --code NNNNNN (the code shown on the other host)")
                return 2
            }
            let list = try client.call(.pairings).pairings
            guard let info = list.first(where: { $0.id.hasPrefix(id.lowercased()) }), !info.initiator else {
                printError("no pairing '\(id)' waiting for a code")
                return 1
            }
            // Passkey entry: the code is typed from the other host's screen;
            // this host never shows one (docs/security.md).
            print("'\(TerminalText.escape(info.name))' (\(info.peerId)) asks to pair.\nType the 6-digit code shown on '\(TerminalText.escape(info.name))' (empty to reject): ",
                  terminator: "")
            fflush(nil)
            let answer = String((readLine() ?? "").filter { !$0.isWhitespace })
            guard !answer.isEmpty else {
                _ = try client.call(.pairReject, params: ControlParams(pairing: info.id))
                emit("rejected")
                return 1
            }
            typed = answer
        }
        let peer = try client.call(.pairAccept, params: ControlParams(pairing: id, code: typed)).peer
        emit(json ? PeerctlRenderer.json(peer) : "paired with '\(TerminalText.escape(peer.name))'")
        return 0
    }

    /// The peer `selector` names, as the daemon lists it.
    func lookUp(_ selector: String) throws(ControlClientError) -> PeerSnapshot {
        try client.call(.peer, params: ControlParams(peer: selector)).peer
    }

    private func invite(_ selector: String, context: String?, timeout: Double?, wait: Bool) throws(ControlClientError) -> Int32 {
        if wait { _ = try client.call(.subscribe) }
        let result = try client.call(.invite, params: scoped(ControlParams(peer: selector, context: context, timeout: timeout)))
        let peer = result.peer
        if let app, let state = result.app {
            // An app's invitation: its own state with the peer.
            if !wait || state.state == .connected {
                emit(json ? PeerctlRenderer.json(result) : "app '\(app)' is \(state.state.rawValue) with '\(TerminalText.escape(peer.name))'")
                return 0
            }
            if !json { emit("invited '\(TerminalText.escape(peer.name))' for app '\(app)'; waiting for an answer") }
            return try waitForAppAnswer(peer, app: app, timeout: timeout)
        }
        if result.joining == true {
            // The session was accepted for an app alone: the default app asked to join it.
            let asked = "asked '\(TerminalText.escape(peer.name))' to carry the default app too (its session was accepted for an app alone)"
            if !wait {
                emit(json ? PeerctlRenderer.json(result) : asked)
                return 0
            }
            if !json { emit("\(asked); waiting for an answer") }
            return try waitForAnswer(peer, timeout: timeout)
        }
        if !wait || peer.state == .connected {
            emit(json ? PeerctlRenderer.json(result) : result.existing ? "'\(TerminalText.escape(peer.name))' is already \(peer.state.rawValue)" : "invited '\(TerminalText.escape(peer.name))' (\(peer.id.uuidString.lowercased()))")
            return 0
        }
        if !json { emit("invited '\(TerminalText.escape(peer.name))'; waiting for an answer") }
        return try waitForAnswer(peer, timeout: timeout)
    }

    /// After an invitation (`invite --wait`, `add --wait`): 0 once the peer
    /// is connected, 1 when the invitation ends otherwise.
    func waitForAnswer(_ peer: PeerSnapshot, timeout: Double?) throws(ControlClientError) -> Int32 {
        let deadline = ContinuousClock.now + .seconds((timeout ?? 30) + 10)
        while true {
            let (event, _) = try client.nextEvent(deadline: deadline)
            guard event.peer?.id == peer.id || event.mismatch?.peer == peer.id else { continue }
            switch event.type {
            case .stateChanged where event.peer?.state == .connected:
                emit(json ? PeerctlRenderer.json(event) : "connected to '\(TerminalText.escape(peer.name))'")
                return 0
            case .stateChanged where event.peer?.state == .notConnected, .inviteFailed:
                if json { emit(PeerctlRenderer.json(event)) }
                printError("the invitation to '\(peer.name)' ended: \(event.reason?.rawValue ?? "unknown")\(event.detail.map { ": \($0)" } ?? "")")
                return 1
            case .identityMismatch:
                if let mismatch = event.mismatch {
                    printError("warning: \(mismatch.address) claims to be '\(peer.name)' but proved id \(mismatch.actual); trying other addresses")
                }
            default:
                continue
            }
        }
    }

    /// After an app's invitation (`--app NAME invite --wait`): 0 once the
    /// app is connected with the peer, 1 when its invitation ends otherwise.
    private func waitForAppAnswer(_ peer: PeerSnapshot, app: String, timeout: Double?) throws(ControlClientError) -> Int32 {
        let deadline = ContinuousClock.now + .seconds((timeout ?? 30) + 40)
        while true {
            let (event, _) = try client.nextEvent(deadline: deadline)
            guard event.type == .appStateChanged, event.peer?.id == peer.id, let state = event.app, state.app == app else { continue }
            switch state.state {
            case .connected:
                emit(json ? PeerctlRenderer.json(event) : "app '\(app)' connected with '\(TerminalText.escape(peer.name))'")
                return 0
            case .notConnected:
                if json { emit(PeerctlRenderer.json(event)) }
                printError("the invitation to '\(peer.name)' for app '\(app)' ended: \(state.reason?.rawValue ?? "unknown")\(state.detail.map { ": \($0)" } ?? "")")
                return 1
            case .connecting:
                continue
            }
        }
    }

    private func waitFor(_ selector: String, state: ConnectionState, timeout: Double) throws(ControlClientError) -> Int32 {
        _ = try client.call(.subscribe)
        let peer = try lookUp(selector)
        if peer.state == state { return 0 }
        let deadline = ContinuousClock.now + .seconds(timeout)
        while true {
            let event: ControlEvent
            do { event = try client.nextEvent(deadline: deadline).event } catch {
                if case .timedOut = error {
                    printError("'\(peer.name)' did not become \(state.rawValue) within \(Int(timeout)) s")
                    return 1
                }
                throw error
            }
            if event.type == .stateChanged, event.peer?.id == peer.id, event.peer?.state == state { return 0 }
        }
    }
}
