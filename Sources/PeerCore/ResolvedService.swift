/// A service as Avahi's resolver reports it, copied out of C memory.
public struct ResolvedService: Hashable, Sendable {
    /// The browse key the resolver was started for.
    public var key: ServiceKey
    /// The interface name for `key.interfaceIndex`.
    public var interfaceName: String
    /// The target host name, such as `host.local`.
    public var hostName: String
    /// The resolved numeric address.
    public var address: String
    /// The address family of `address` (may differ from `key.family`).
    public var addressFamily: AddressFamily
    /// The service port.
    public var port: UInt16
    /// The TXT record, in record order.
    public var txt: [TXTEntry]

    /// Creates a resolved service.
    public init(key: ServiceKey, interfaceName: String, hostName: String, address: String,
                addressFamily: AddressFamily, port: UInt16, txt: [TXTEntry]) {
        self.key = key
        self.interfaceName = interfaceName
        self.hostName = hostName
        self.address = address
        self.addressFamily = addressFamily
        self.port = port
        self.txt = txt
    }

    /// The advertised peer id, if the TXT record has a non-empty `id`.
    public var advertisedPeerID: String? {
        guard let value = txt.first(where: { $0.key.lowercased() == "id" })?.value, !value.isEmpty else { return nil }
        return value
    }

    /// The registry key: the advertised id, or else the instance name.
    public var peerKey: PeerKey {
        advertisedPeerID.map(PeerKey.peerID) ?? .instanceName(key.name)
    }

    /// The endpoint this resolution contributes to its peer.
    public var endpoint: Endpoint {
        Endpoint(interface: interfaceName, family: addressFamily, address: address, port: port)
    }
}
