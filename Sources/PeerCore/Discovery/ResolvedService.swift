/// A service as Avahi's resolver reports it, copied out of C memory.
package import PeerProtocol
package struct ResolvedService: Hashable, Sendable {
    /// The browse key the resolver was started for.
    package var key: ServiceKey
    /// The interface name for `key.interfaceIndex`.
    package var interfaceName: String
    /// The target host name, such as `host.local`.
    package var hostName: String
    /// The resolved numeric address.
    package var address: String
    /// The address family of `address` (may differ from `key.family`).
    package var addressFamily: AddressFamily
    /// The service port.
    package var port: UInt16
    /// The TXT record, in record order.
    package var txt: [TXTEntry]

    /// Creates a resolved service.
    package init(key: ServiceKey, interfaceName: String, hostName: String, address: String,
                addressFamily: AddressFamily, port: UInt16, txt: [TXTEntry]) {
        self.key = key
        self.interfaceName = interfaceName
        self.hostName = hostName
        self.address = address
        self.addressFamily = addressFamily
        self.port = port
        self.txt = txt
    }

    /// The advertised peer id, if the TXT record's `id` is one: exactly 32
    /// lowercase hex digits (docs/identity.md). Anything else makes the
    /// service foreign, keyed by its instance name, so an advertiser cannot
    /// smuggle escapes, spaces or another form of a real id into the table.
    package var advertisedPeerID: String? {
        guard let value = txt.first(where: { $0.key.lowercased() == "id" })?.value, Self.isPeerID(value) else { return nil }
        return value
    }

    /// Whether `text` has the form of a peer id: 32 lowercase hex digits.
    package static func isPeerID(_ text: String) -> Bool {
        text.utf8.count == 32 && text.utf8.allSatisfy { (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }
    }

    /// The registry key: the advertised id, or else the instance name.
    package var peerKey: PeerKey {
        advertisedPeerID.map(PeerKey.peerID) ?? .instanceName(key.name)
    }

    /// The endpoint this resolution contributes to its peer.
    package var endpoint: Endpoint {
        Endpoint(interface: interfaceName, family: addressFamily, address: address, port: port)
    }
}
