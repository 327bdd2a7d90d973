/// What the app requests (`register`, `appAdd`, `appRemove`) need of their
/// parameters, checked before anything is asked of the registry: each bad
/// input is `invalidParams` naming the rule it broke.
public enum AppRequestRules {
    /// `params.app` as a name to register (never the default app).
    public static func name(_ method: ControlMethod, _ params: ControlParams) -> Result<AppName, ControlError> {
        guard let text = params.app else { return .failure(ControlError(.invalidParams, "'\(method.rawValue)' needs params.app")) }
        do {
            return .success(try AppName(text))
        } catch {
            return .failure(ControlError(.invalidParams, "app '\(text)': \(error)"))
        }
    }

    /// `params.info` (`key=value` strings) as `app`'s info; nil when absent.
    public static func info(_ params: ControlParams, for app: AppName) -> Result<AppInfo?, ControlError> {
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

    /// A refusal of the registry as the error a client sees.
    public static func error(_ refusal: AppRefusal) -> ControlError {
        ControlError(refusal.isPermission ? .permissionDenied : .invalidParams, refusal.description)
    }
}
