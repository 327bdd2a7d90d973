package import PeerProtocol
extension AppRow {
    /// The row of `registration`, published under `serviceType`.
    package init(_ registration: AppRegistration, serviceType: String) {
        self.init(name: registration.name.text, uid: registration.uid, clients: registration.clients.count,
                  declared: registration.declared,
                  info: Dictionary(registration.info.entries.map { ($0.key, $0.value) }, uniquingKeysWith: { first, _ in first }),
                  subtype: registration.name.subtype(of: serviceType))
    }
}
