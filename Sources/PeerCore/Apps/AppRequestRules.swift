/// What the app requests (`register`, `appAdd`, `appRemove`) need of their
/// parameters, checked before anything is asked of the registry: each bad
/// input is `invalidParams` naming the rule it broke.
package import PeerProtocol
package enum AppRequestRules {
    /// `params.app` as a name to register (never the default app).
    package static func name(_ method: ControlMethod, _ params: ControlParams) -> Result<AppName, ControlError> {
        guard let text = params.app else { return .failure(ControlError(.invalidParams, "'\(method.rawValue)' needs params.app")) }
        do {
            return .success(try AppName(text))
        } catch {
            return .failure(ControlError(.invalidParams, "app '\(text)': \(error)"))
        }
    }

    /// `params.info` (`key=value` strings) as `app`'s info; nil when absent.
    package static func info(_ params: ControlParams, for app: AppName) -> Result<AppInfo?, ControlError> {
        guard let pairs = params.info else { return .success(nil) }
        var entries: [TXTEntry] = []
        for pair in pairs {
            guard pair.contains("=") else { return .failure(ControlError(.invalidParams, "info '\(pair)': expected key=value")) }
            entries.append(TXTEntry(raw: pair))
        }
        do {
            return .success(try AppInfo(entries, for: app))
        } catch {
            return .failure(ControlError(.invalidParams, "app \(app): \(error)"))
        }
    }

    /// The app a traffic request (`send`, `subscribe`, `take`, `inbox`,
    /// `channel`) acts for: the default app when `params.app` is absent or
    /// empty; otherwise the app, which this connection must hold (it
    /// registered it), so a uid can read and send only as the apps it may
    /// hold. `holds` says whether the connection holds a name.
    package static func trafficApp(_ method: ControlMethod, _ params: ControlParams, holds: (AppName) -> Bool) -> Result<AppName, ControlError> {
        guard let text = params.app, !text.isEmpty else { return .success(.none) }
        let name: AppName
        do { name = try AppName(text) } catch { return .failure(ControlError(.invalidParams, "app '\(text)': \(error)")) }
        guard holds(name) else {
            return .failure(ControlError(.permissionDenied, "'\(method.rawValue)' for app '\(text)' needs this connection to hold it: register it first (peerctl --app \(text) …)"))
        }
        return .success(name)
    }

    /// A refusal of the registry as the error a client sees.
    package static func error(_ refusal: AppRefusal) -> ControlError {
        ControlError(refusal.isPermission ? .permissionDenied : .invalidParams, refusal.description)
    }
}
