import FoundationEssentials
import PeerCore
import PeerProtocol

/// The datagram path's requests (docs/control-protocol.md, "Datagrams"):
/// `datagram` sends one, `datagrams` opens a socket for many both ways.
/// Each is in the caller's app, which the connection must hold; an app's
/// datagrams need the app connected with the peer, as its messages do.
extension DatagramDesk {
    /// `datagram` and `datagrams`, which the router hands here.
    package var controlMethods: Set<ControlMethod> { [.datagram, .datagrams] }

    /// `datagram` or `datagrams`.
    package func handle(_ method: ControlMethod, params: ControlParams, client: ControlConnection) -> ControlReply {
        if method == .datagrams {
            guard let descriptor = client.takeDescriptors(1)?.first else {
                return .error(ControlError(.invalidParams, "'datagrams' needs one descriptor with the line: a SOCK_SEQPACKET socket"))
            }
            switch apps.trafficApp(.datagrams, params, client: client) {
            case .success(let app):
                return .later { [self] answer in open(descriptor, app: app, answer: answer) }
            case .failure(let error):
                descriptor.close()
                return .error(error)
            }
        }
        let target = apps.trafficApp(.datagram, params, client: client).flatMap { app in
            ControlRequestRules.peerSelector(.datagram, params).flatMap { directory.select($0) }.map { (app, $0) }
        }
        switch target {
        case .success((let app, let peer)):
            return .from(.datagram, datagramData(params, app: app).flatMap { data in
                data.withUnsafeBytes { send(to: peer, app: app, $0, fallback: params.fallback ?? false) }
            })
        case .failure(let error):
            return .error(error)
        }
    }

    /// The data of a `datagram`: `params.data` in base64, within the
    /// app's limit (1,200 bytes less the app name's length).
    private func datagramData(_ params: ControlParams, app: AppName) -> Result<[UInt8], ControlError> {
        guard let text = params.data, let data = Data(base64Encoded: text) else {
            return .failure(ControlError(.invalidParams, "'datagram' needs params.data: the datagram in base64"))
        }
        let limit = DatagramBody.maxData(for: app)
        guard data.count <= limit else {
            let whose = app.isDefault ? "" : " of app '\(app.text)' (1,200 less the app name's length)"
            return .failure(ControlError(.invalidParams, "the datagram is \(data.count) bytes; a datagram\(whose) carries at most \(limit): split it, or send it as a message"))
        }
        return .success(Array(data))
    }
}
