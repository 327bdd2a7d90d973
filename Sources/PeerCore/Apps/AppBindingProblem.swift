/// Why a peer's `appOpen` is a protocol error (``AppBindings``).
package import PeerProtocol
package enum AppBindingProblem: Error, Equatable, Sendable, CustomStringConvertible {
    /// Number 0 is the default app's, never bound.
    case zero
    /// The number was bound already in this session.
    case rebound(UInt16)
    /// The name breaks the app-name rule.
    case badName(String, AppNameProblem)
    /// More than ``AppBindings/maxBindings`` numbers in one session.
    case tooMany(max: Int)

    /// The protocol error's words.
    package var description: String {
        switch self {
        case .zero: "appOpen of number 0, the default app's"
        case .rebound(let number): "appOpen of number \(number), bound already in this session"
        case .badName(let name, let problem): "appOpen of a bad name '\(name)': \(problem)"
        case .tooMany(let max): "appOpen past \(max) apps in one session"
        }
    }
}
