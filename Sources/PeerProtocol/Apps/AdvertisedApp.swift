/// An app a peer says it runs, as its row shows it (`apps` of PEER):
/// its discovery info, and whether the peer's daemon confirmed it over an
/// authenticated session. Heard over mDNS it is only a claim, like the
/// advertised peer id (docs/security.md, "App names").
public struct AdvertisedApp: Codable, Sendable, Equatable {
    /// The app's discovery info (its `NAME.KEY=VALUE` strings, keys without the name).
    public var info: [String: String]
    /// Whether the peer's daemon confirmed the app over its current
    /// authenticated session (`appList`, docs/protocol.md §10); false for
    /// an app only heard over mDNS.
    public var confirmed: Bool

    /// An app with `info`, not confirmed.
    public init(info: [String: String], confirmed: Bool = false) {
        self.info = info
        self.confirmed = confirmed
    }

    /// A row's apps once its daemon confirmed `confirmed` over the session:
    /// those are marked confirmed (an app it confirms but does not
    /// advertise, a registration newer than its TXT record, is shown
    /// without info), and advertised ones it does not confirm stay claims.
    /// Nil when there are none either way.
    public static func merge(advertised: [String: AdvertisedApp]?, confirmed: [String]) -> [String: AdvertisedApp]? {
        var apps = advertised ?? [:]
        for name in confirmed { apps[name, default: AdvertisedApp(info: [:])].confirmed = true }
        return apps.isEmpty ? nil : apps
    }

    /// The apps in a peer's TXT pairs: the names of `apps=` that follow
    /// the name rule (others are ignored), each with its `NAME.KEY` pairs.
    /// Nil when the peer lists none (a release without apps, or no app).
    public static func parse(_ txt: [String: String]) -> [String: AdvertisedApp]? {
        guard let list = txt["apps"] else { return nil }
        var apps: [String: AdvertisedApp] = [:]
        for name in list.split(separator: ",").map(String.init) where AppName.problem(of: name) == nil {
            apps[name] = AdvertisedApp(info: [:])
        }
        for (key, value) in txt {
            guard let dot = key.firstIndex(of: "."), apps[String(key[..<dot])] != nil else { continue }
            let field = String(key[key.index(after: dot)...])
            if !field.isEmpty { apps[String(key[..<dot])]!.info[field] = value }
        }
        return apps.isEmpty ? nil : apps
    }
}
