import PeerCore
import PeerProtocol

/// The data plane's requests (files and streams): each of the caller's
/// app, which the connection must hold, and for an app connected with the
/// peer (issue 23, point 4).
extension ControlRouter {
    /// `sendFile`, `acceptTransfer`, `declineTransfer`, `cancelTransfer`,
    /// `transfers` and `pipe`.
    func dataPlaneRequest(_ method: ControlMethod, params: ControlParams, client: ControlConnection) -> ControlReply {
        let refusal: ControlError
        switch apps.trafficApp(method, params, client: client) {
        case .success(let app):
            guard let notConnected = notConnected(method, app: app, params: params) else {
                return method == .pipe ? pipe(params, app: app, client: client) : transferRequest(method, params: params, app: app, client: client)
            }
            refusal = notConnected
        case .failure(let error):
            refusal = error
        }
        // The descriptors that came with the line go with the refusal.
        client.takeDescriptors(method == .pipe ? 2 : (method == .sendFile ? (params.files ?? []).count : 0))?.forEach { $0.close() }
        return .error(refusal)
    }

    private func transferRequest(_ method: ControlMethod, params: ControlParams, app: AppName, client: ControlConnection) -> ControlReply {
        switch method {
        case .sendFile:
            let entries = params.files ?? []
            // The descriptors came with the line: taken first, so a refused
            // request never leaves them for the next one.
            guard let descriptors = client.takeDescriptors(entries.count) else {
                return .error(ControlError(.invalidParams, "'sendFile' lists \(entries.count) files but fewer descriptors came with it"))
            }
            let outcome = ControlRequestRules.peerSelector(method, params).flatMap { directory.select($0) }
                .flatMap { transfers.sendFile(to: $0, transfer: params.transfer, entries: entries, descriptors: descriptors, more: params.more ?? false,
                                              app: app) }
            if case .failure = outcome { descriptors.forEach { $0.close() } }
            return .from(.sendFile, outcome)
        case .transfers:
            return .from(.transfers, transfers.list(params.transfer, offset: params.offset, max: params.max, app: app))
        default:
            guard let id = params.transfer, !id.isEmpty else {
                return .error(ControlError(.invalidParams, "'\(method.rawValue)' needs params.transfer"))
            }
            switch method {
            case .acceptTransfer: return .from(.acceptTransfer, transfers.accept(id, files: params.accept, app: app))
            case .declineTransfer: return .from(.declineTransfer, transfers.decline(id, app: app))
            default: return .from(.cancelTransfer, transfers.cancel(id, app: app))
            }
        }
    }

    /// Why an app's `sendFile` or `pipe` cannot go to its peer: its release
    /// has no apps (as its last handshake said), or, as with the app's
    /// messages, the app is not connected with it (the peer refuses
    /// otherwise). Nil for the default app, and for other methods.
    private func notConnected(_ method: ControlMethod, app: AppName, params: ControlParams) -> ControlError? {
        guard !app.isDefault, method == .sendFile || method == .pipe,
              case .success(let peer) = ControlRequestRules.peerSelector(method, params).flatMap({ directory.select($0) })
        else { return nil }
        if let features = peer.features, !features.contains(WireFeature.apps.rawValue) {
            return .unsupported(.apps, peer: peer.name, release: peer.release ?? PeerHello.silentRelease)
        }
        guard appSessions.state(peer.id, app) != .connected else { return nil }
        return ControlError(.notConnected, "app '\(app.text)' is not connected with '\(peer.name)'; invite it first (peerctl --app \(app.text) invite \(peer.name))")
    }

    /// `pipe`: answered when the stream is over.
    private func pipe(_ params: ControlParams, app: AppName, client: ControlConnection) -> ControlReply {
        guard let pair = client.takeDescriptors(2) else {
            return .error(ControlError(.invalidParams, "'pipe' needs two descriptors with the line: the input, then the output"))
        }
        let peer: PeerSnapshot
        switch ControlRequestRules.peerSelector(.pipe, params).flatMap({ directory.select($0) }) {
        case .success(let found): peer = found
        case .failure(let error):
            pair.forEach { $0.close() }
            return .error(error)
        }
        let name = params.name ?? ""
        guard !name.isEmpty, name.utf8.count <= BulkCodec.maxStreamName else {
            pair.forEach { $0.close() }
            return .error(ControlError(.invalidParams, "'pipe' needs params.name, 1 to \(BulkCodec.maxStreamName) bytes"))
        }
        let streams = streams
        return .later { answer in streams.pipe(to: peer, name: name, app: app, input: pair[0], output: pair[1], client: client, answer: answer) }
    }
}
