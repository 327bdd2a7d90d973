/// The numbers one session gives app names on the wire (issue 23, point
/// 4; docs/protocol.md §10): each side numbers the
/// apps it sends for, once per session (an `appOpen`), then sends the
/// number, so a 100-byte message carries 2 bytes of app, not its name.
/// Numbers are per direction, start at 1 (0 is the default app, never
/// bound), are never reused within a session, and are bounded, so a peer
/// cannot make a table of its own size here.
package import PeerProtocol
package struct AppBindings: Sendable, Equatable {
    /// The most numbers one side binds in one session: four times the
    /// apps a host keeps.
    package static let maxBindings = AppRegistry.maxApps * 4

    private var outgoing: [AppName: UInt16] = [:]
    private var incoming: [UInt16: AppName] = [:]

    /// A session's bindings, none yet.
    package init() {}

    /// The number to send `app`'s traffic under, and whether an `appOpen`
    /// must go first. The default app is number 0 and needs none; nil when
    /// this side has bound its most.
    package mutating func outgoingNumber(for app: AppName) -> (number: UInt16, announce: Bool)? {
        if app.isDefault { return (0, false) }
        if let number = outgoing[app] { return (number, false) }
        guard outgoing.count < Self.maxBindings else { return nil }
        let number = UInt16(outgoing.count + 1)
        outgoing[app] = number
        return (number, true)
    }

    /// The peer bound `number` to `name` (its `appOpen`): nil, or the
    /// protocol error it is.
    package mutating func peerBound(_ number: UInt16, to name: String) -> AppBindingProblem? {
        guard number != 0 else { return .zero }
        guard incoming[number] == nil else { return .rebound(number) }
        guard incoming.count < Self.maxBindings else { return .tooMany(max: Self.maxBindings) }
        do {
            incoming[number] = try AppName(name)
            return nil
        } catch {
            return .badName(name, error)
        }
    }

    /// The app this side bound `number` to (nil for one it never bound:
    /// the peer's `appBusy` or `appReady` of it is a protocol error).
    package func outgoingApp(_ number: UInt16) -> AppName? {
        number == 0 ? nil : outgoing.first { $0.value == number }?.key
    }

    /// The number the peer bound `app` to, if it did.
    package func incomingNumber(for app: AppName) -> UInt16? {
        incoming.first { $0.value == app }?.key
    }

    /// The app the peer's `number` names: the default app for 0, nil for a
    /// number it never bound (a protocol error where it is used).
    package func incomingApp(_ number: UInt16) -> AppName? {
        number == 0 ? AppName.none : incoming[number]
    }
}
