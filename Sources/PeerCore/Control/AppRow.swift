/// One app registered on this host, as `apps`, `register` and `appAdd`
/// answer it.
public struct AppRow: Codable, Sendable, Equatable {
    /// The app's name.
    public var name: String
    /// The uid that holds it.
    public var uid: UInt32
    /// Control connections holding it live.
    public var clients: Int
    /// Whether it is declared (kept across restarts).
    public var declared: Bool
    /// Its discovery info.
    public var info: [String: String]
    /// The DNS-SD subtype it is published under (`_chat._sub._peerd._tcp`).
    public var subtype: String

    /// The row of `registration`, published under `serviceType`.
    public init(_ registration: AppRegistration, serviceType: String) {
        name = registration.name.text
        uid = registration.uid
        clients = registration.clients.count
        declared = registration.declared
        info = Dictionary(registration.info.entries.map { ($0.key, $0.value) }, uniquingKeysWith: { first, _ in first })
        subtype = registration.name.subtype(of: serviceType)
    }
}
