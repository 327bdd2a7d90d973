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

    /// A row with every field given.
    public init(name: String, uid: UInt32, clients: Int, declared: Bool, info: [String: String], subtype: String) {
        self.name = name
        self.uid = uid
        self.clients = clients
        self.declared = declared
        self.info = info
        self.subtype = subtype
    }
}
