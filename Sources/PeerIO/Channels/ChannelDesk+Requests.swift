import FoundationEssentials
import PeerCore
import PeerProtocol

/// The channels' request (docs/control-protocol.md, "Message channels"):
/// `channel` joins a client's stream socket to a peer's session, in the
/// caller's app, which the connection must hold; an app's channel needs
/// the app connected with the peer.
extension ChannelDesk {
    /// `channel`, which the router hands here.
    package var controlMethods: Set<ControlMethod> { [.channel] }

    /// `channel`: answered when the channel is over.
    package func handle(_ method: ControlMethod, params: ControlParams, client: ControlConnection) -> ControlReply {
        guard let descriptor = client.takeDescriptors(1)?.first else {
            return .error(ControlError(.invalidParams, "'channel' needs one descriptor with the line: a connected stream socket"))
        }
        let app = apps.trafficApp(.channel, params, client: client)
        switch app.flatMap({ app in ControlRequestRules.peerSelector(.channel, params).flatMap({ directory.select($0) }).map { (app, $0) } }) {
        case .success((let app, let peer)) where !app.isDefault && appSessions.state(peer.id, app) != .connected:
            descriptor.close()
            return .error(ControlError(.notConnected, "app '\(app.text)' is not connected with '\(peer.name)'; invite it first"))
        case .success((let app, let peer)):
            let options = ChannelOptions(receive: params.receive ?? true, announce: params.opened ?? false)
            return .later { [self] answer in open(to: peer, app: app, options: options, descriptor: descriptor, client: client, answer: answer) }
        case .failure(let error):
            descriptor.close()
            return .error(error)
        }
    }
}
